import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { User } from '@poi/shared/schemas/users';
import { accountTypeBadgeClass } from '../../components/ui/account-type-badge';
import { menuGroupsFor } from './menu';
import { SideMenu } from './side-menu';

const base: User = { id: 'u', email: 'taro@example.com', display_name: null, role: 'user', account_type: 'trial' };
const ids = (u: User) => menuGroupsFor(u).map((g) => g.id);

describe('side menu rules', () => {
  it('shows revenue to data providers and admins, the admin group to admins only', () => {
    expect(ids(base)).toEqual(['dashboard', 'api', 'data', 'billing']);
    expect(ids({ ...base, account_type: 'data_provider' })).toContain('provider');
    expect(ids({ ...base, account_type: 'platform_admin' })).not.toContain('provider');
    expect(ids({ ...base, role: 'admin', account_type: 'individual' })).toEqual(['dashboard', 'api', 'data', 'billing', 'provider', 'admin']);
  });

  it('colours the account-type badge as the spec says', () => {
    expect(accountTypeBadgeClass('trial')).toContain('yellow');
    expect(accountTypeBadgeClass('individual')).toContain('blue');
    expect(accountTypeBadgeClass('corporate')).toContain('purple');
    expect(accountTypeBadgeClass('data_provider')).toContain('gray');
    expect(accountTypeBadgeClass('platform_admin')).toContain('gray');
  });

  it('footer: initials (≤ 2), name with the ゲスト fallback, e-mail', () => {
    const { rerender } = render(
      <MemoryRouter>
        <SideMenu user={base} />
      </MemoryRouter>,
    );
    expect(screen.getByText('ゲスト')).toBeInTheDocument();
    expect(screen.getByText('T')).toBeInTheDocument();
    expect(screen.getByText('taro@example.com')).toBeInTheDocument();
    rerender(
      <MemoryRouter>
        <SideMenu user={{ ...base, display_name: 'Taro Yamada Jr' }} />
      </MemoryRouter>,
    );
    expect(screen.getByText('TY')).toBeInTheDocument();
    expect(screen.getByText('Taro Yamada Jr')).toBeInTheDocument();
  });
});
