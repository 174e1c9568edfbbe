export const ACCOUNT_TYPES = ['trial', 'individual', 'corporate', 'data_provider', 'platform_admin'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const ACCOUNT_TYPE_LABELS: Record<AccountType, string> = {
  trial: 'トライアル',
  individual: '個人',
  corporate: '法人',
  data_provider: 'プロバイダー',
  platform_admin: '管理者',
};

interface RoleSubject {
  role: Role | string;
  account_type: AccountType | string;
}

export const isAdmin = (u: RoleSubject | null | undefined): boolean => u?.role === 'admin';
export const isDataProvider = (u: RoleSubject | null | undefined): boolean => u?.account_type === 'data_provider';
export const isPlatformAdmin = (u: RoleSubject | null | undefined): boolean => u?.account_type === 'platform_admin';
/** Who may open /revenue. */
export const hasRevenueAccess = (u: RoleSubject | null | undefined): boolean => isDataProvider(u) || isPlatformAdmin(u);
/** Who sees the revenue item in the side menu (data_provider or admin). */
export const showsRevenueMenu = (u: RoleSubject | null | undefined): boolean => isDataProvider(u) || isAdmin(u);
