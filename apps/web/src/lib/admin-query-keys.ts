/** A list's parameters as the screens keep them in the URL; empty values take the server's defaults. */
export type Params = Record<string, string>;

/*
 * Query keys of the admin screens, one factory per resource (all → list(params) → detail(id)).
 * All of them start with 'admin' so they never meet the signed-in user's own keys. They live in
 * lib/ because a write in one domain's feature refreshes another's screens (a corporate approval
 * changes the user list and the dashboard, a booked transfer the revenue), and features do not
 * import each other.
 */
export const adminUsersKeys = {
  all: ['admin', 'users'] as const,
  lists: () => [...adminUsersKeys.all, 'list'] as const,
  list: (params: Params) => [...adminUsersKeys.lists(), params] as const,
  details: () => [...adminUsersKeys.all, 'detail'] as const,
  detail: (id: string) => [...adminUsersKeys.details(), id] as const,
};

export const adminCorporateKeys = {
  all: ['admin', 'corporate'] as const,
  lists: () => [...adminCorporateKeys.all, 'list'] as const,
  list: (params: Params) => [...adminCorporateKeys.lists(), params] as const,
  details: () => [...adminCorporateKeys.all, 'detail'] as const,
  detail: (id: string) => [...adminCorporateKeys.details(), id] as const,
};

export const adminTransfersKeys = {
  all: ['admin', 'transfers'] as const,
  pending: (params: Params) => [...adminTransfersKeys.all, 'pending', params] as const,
};

export const adminPricingKeys = {
  all: ['admin', 'pricing'] as const,
  history: () => [...adminPricingKeys.all, 'history'] as const,
};

/** The platform's money: a month's figures, per provider, one provider's months, and the dashboard built on them. */
export const adminRevenueKeys = {
  all: ['admin', 'revenue'] as const,
  platform: (yearMonth: string) => [...adminRevenueKeys.all, 'platform', yearMonth] as const,
  providers: (yearMonth: string) => [...adminRevenueKeys.all, 'providers', yearMonth] as const,
  provider: (id: string) => [...adminRevenueKeys.all, 'provider', id] as const,
  dashboard: () => [...adminRevenueKeys.all, 'dashboard'] as const,
};
