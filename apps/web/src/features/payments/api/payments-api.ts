import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { billingAccountViewResponseSchema, type BillingAccountView, type BillingDetailsBody } from '@poi/shared/schemas/invoices';
import { checkoutResponseSchema, completeResponseSchema, type CheckoutPurpose, type CompleteResult } from '@poi/shared/schemas/payments';
import { apiClient, getParsed } from '../../../lib/api-client';

export const paymentKeys = {
  all: ['payments'] as const,
  account: () => [...paymentKeys.all, 'account'] as const,
  complete: (sessionId: string) => [...paymentKeys.all, 'complete', sessionId] as const,
};

export async function getAccount(): Promise<BillingAccountView> {
  return getParsed('/console/v1/billing/account', billingAccountViewResponseSchema);
}

export const useAccount = () => useQuery(queryOptions({ queryKey: paymentKeys.account(), queryFn: getAccount }));

/** Opens Stripe Checkout (setup mode): the browser leaves for the hosted page. */
export async function startCheckout(purpose: CheckoutPurpose): Promise<void> {
  const { url } = checkoutResponseSchema.parse((await apiClient.post('/console/v1/payment-method/checkout', { purpose })).data).data;
  window.location.assign(url);
}

export function useRemoveCard() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => (await apiClient.post('/console/v1/payment-method/remove')).data as { message?: string },
    onSuccess: () => client.invalidateQueries({ queryKey: paymentKeys.all }),
  });
}

export function useSaveDetails() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: BillingDetailsBody) => billingAccountViewResponseSchema.parse((await apiClient.post('/console/v1/billing/account', body)).data).data,
    onSuccess: (view) => client.setQueryData(paymentKeys.account(), view),
  });
}

/**
 * Verifies the Checkout session and saves the card: a query keyed by the session id, so it runs
 * once per page load even under StrictMode (the server answers a repeat the same way).
 */
export const useCompleteCheckout = (sessionId: string) =>
  useQuery(
    queryOptions({
      queryKey: paymentKeys.complete(sessionId),
      queryFn: async (): Promise<CompleteResult> =>
        completeResponseSchema.parse((await apiClient.post('/console/v1/payment-method/complete', { session_id: sessionId })).data).data,
      retry: false,
      staleTime: Infinity,
      gcTime: Infinity,
      refetchOnWindowFocus: false,
      enabled: sessionId !== '',
    }),
  );

/** The signed-in user as the server now sees them (the account type changes when a card upgrade completes). */
export async function getCurrentUser() {
  const { userResponseSchema } = await import('@poi/shared/schemas/users');
  return userResponseSchema.parse((await apiClient.get('/console/v1/user')).data).user;
}
