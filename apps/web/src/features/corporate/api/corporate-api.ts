import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { checkoutResponseSchema, type CheckoutPurpose } from '@poi/shared/schemas/payments';
import { corporateApplicationResponseSchema, upgradeViewResponseSchema, type CorporateApplicationBody, type UpgradeView } from '@poi/shared/schemas/corporate';
import { apiClient, getParsed } from '../../../lib/api-client';

export const corporateKeys = { all: ['corporate'] as const, view: () => [...corporateKeys.all, 'view'] as const };

export async function getUpgradeView(): Promise<UpgradeView> {
  return getParsed('/console/v1/upgrade', upgradeViewResponseSchema);
}
export const useUpgradeView = () => useQuery(queryOptions({ queryKey: corporateKeys.view(), queryFn: getUpgradeView }));

/** Opens Stripe Checkout (setup mode) for this purpose: the browser leaves for the hosted page. */
export async function startCheckout(purpose: CheckoutPurpose): Promise<void> {
  const { url } = checkoutResponseSchema.parse((await apiClient.post('/console/v1/payment-method/checkout', { purpose })).data).data;
  window.location.assign(url);
}

export function useApplyCorporate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: CorporateApplicationBody) => corporateApplicationResponseSchema.parse((await apiClient.post('/console/v1/upgrade/corporate', body)).data).data,
    onSuccess: () => client.invalidateQueries({ queryKey: corporateKeys.all }),
  });
}
