import { act, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { User } from '@poi/shared/schemas/users';
import { authStore } from '../lib/auth-store';
import { AppProvider } from './provider';
import { routes } from './router';

const trial: User = { id: 'u1', email: 'trial@example.com', display_name: null, role: 'user', account_type: 'trial' };
const provider: User = { ...trial, id: 'u2', account_type: 'data_provider' };
const admin: User = { ...trial, id: 'u3', role: 'admin', account_type: 'platform_admin' };

function renderAt(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return router;
}

const where = (router: ReturnType<typeof renderAt>) => `${router.state.location.pathname}${router.state.location.search}${router.state.location.hash}`;

afterEach(() => act(() => authStore.clear()));

describe('guards', () => {
  it('sends a guest to login with the full target path', async () => {
    const router = renderAt('/marketplace/abc?type=paid#top');
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth/login'));
    expect(new URLSearchParams(router.state.location.search).get('redirect')).toBe('/marketplace/abc?type=paid#top');
  });

  it('sends a signed-in user away from guest routes', async () => {
    authStore.signIn('t', trial);
    const router = renderAt('/auth/login');
    await waitFor(() => expect(where(router)).toBe('/dashboard'));
  });

  it('sends unknown paths to the dashboard', async () => {
    authStore.signIn('t', trial);
    const router = renderAt('/no/such/page');
    await waitFor(() => expect(where(router)).toBe('/dashboard'));
  });

  it.each(['/admin/dashboard', '/admin/users', '/admin/corporate', '/admin/transfers', '/admin/pricing', '/admin/revenue'])(
    'keeps non-admins off %s',
    async (path) => {
      authStore.signIn('t', provider);
      const router = renderAt(path);
      await waitFor(() => expect(where(router)).toBe('/dashboard'));
    },
  );

  it('lets admins in', async () => {
    authStore.signIn('t', admin);
    const router = renderAt('/admin/users');
    expect(await screen.findByRole('heading', { level: 1, name: 'ユーザー管理' })).toBeInTheDocument();
    expect(where(router)).toBe('/admin/users');
    expect(document.title).toBe('ユーザー管理 | POI Cloud');
  });

  it('gives /revenue to data providers and platform admins only', async () => {
    authStore.signIn('t', trial);
    const router = renderAt('/revenue');
    await waitFor(() => expect(where(router)).toBe('/dashboard'));
    act(() => authStore.clear());
    authStore.signIn('t', provider);
    const again = renderAt('/revenue');
    expect(await screen.findByRole('heading', { level: 1, name: '収益レポート' })).toBeInTheDocument();
    expect(where(again)).toBe('/revenue');
  });

  it('shows /docs/api and /commerce to guests without the shell', async () => {
    renderAt('/docs/api');
    expect(await screen.findByRole('heading', { level: 1, name: 'POI Cloud 公開検索API' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '認証' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'ユーザーメニュー' })).toBeNull();
  });
});
