import { describe, expect, it } from 'vitest';
import { hasRevenueAccess, isAdmin, showsRevenueMenu } from './roles';

const u = (role: string, account_type: string) => ({ role, account_type });

describe('roles', () => {
  it("follow the console's role rules", () => {
    expect(isAdmin(u('admin', 'trial'))).toBe(true);
    expect(isAdmin(u('user', 'platform_admin'))).toBe(false);
    expect(hasRevenueAccess(u('user', 'data_provider'))).toBe(true);
    expect(hasRevenueAccess(u('user', 'platform_admin'))).toBe(true);
    expect(hasRevenueAccess(u('admin', 'individual'))).toBe(false);
    expect(showsRevenueMenu(u('admin', 'individual'))).toBe(true);
    expect(showsRevenueMenu(u('user', 'platform_admin'))).toBe(false);
    expect(showsRevenueMenu(null)).toBe(false);
  });
});
