/** A list's parameters as the screens keep them in the URL; empty values take the server's defaults. */
export type Params = Record<string, string>;

/*
 * Query keys of the admin screens, one factory per resource (all → list(params) → detail(id)).
 * All of them start with 'admin' so they never meet the signed-in user's own keys.
 */
export const usersKeys = {
  all: ['admin', 'users'] as const,
  lists: () => [...usersKeys.all, 'list'] as const,
  list: (params: Params) => [...usersKeys.lists(), params] as const,
  details: () => [...usersKeys.all, 'detail'] as const,
  detail: (id: string) => [...usersKeys.details(), id] as const,
};

export const corporateKeys = {
  all: ['admin', 'corporate'] as const,
  lists: () => [...corporateKeys.all, 'list'] as const,
  list: (params: Params) => [...corporateKeys.lists(), params] as const,
  details: () => [...corporateKeys.all, 'detail'] as const,
  detail: (id: string) => [...corporateKeys.details(), id] as const,
};

export const transfersKeys = {
  all: ['admin', 'transfers'] as const,
  pending: (params: Params) => [...transfersKeys.all, 'pending', params] as const,
};

export const pricingKeys = {
  all: ['admin', 'pricing'] as const,
  history: () => [...pricingKeys.all, 'history'] as const,
};

/** The platform's money: a month's figures, per provider, one provider's months, and the dashboard built on them. */
export const revenueKeys = {
  all: ['admin', 'revenue'] as const,
  platform: (yearMonth: string) => [...revenueKeys.all, 'platform', yearMonth] as const,
  providers: (yearMonth: string) => [...revenueKeys.all, 'providers', yearMonth] as const,
  provider: (id: string) => [...revenueKeys.all, 'provider', id] as const,
  dashboard: () => [...revenueKeys.all, 'dashboard'] as const,
};
