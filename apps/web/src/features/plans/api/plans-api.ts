import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { planStateResponseSchema, type CorporateCancellationBody, type PlanState } from '@poi/shared/schemas/plans';
import { apiClient, getParsed } from '../../../lib/api-client';

export const planKeys = {
  all: ['plans'] as const,
  state: () => [...planKeys.all, 'state'] as const,
};

export async function getPlanState(): Promise<PlanState> {
  return getParsed('/console/v1/billing/plan', planStateResponseSchema);
}

export const usePlanState = () => useQuery(queryOptions({ queryKey: planKeys.state(), queryFn: getPlanState }));

function usePlanMutation<T>(post: (body: T) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: T) => planStateResponseSchema.parse(await post(body)).data,
    onSuccess: (state) => client.setQueryData(planKeys.state(), state),
  });
}

export const useCancelPlan = () => usePlanMutation<void>(async () => (await apiClient.post('/console/v1/billing/plan/cancel')).data);

export const useUndoCancelPlan = () => usePlanMutation<void>(async () => (await apiClient.post('/console/v1/billing/plan/cancel/undo')).data);

export const useRequestCorporateCancellation = () =>
  usePlanMutation<CorporateCancellationBody>(async (body) => (await apiClient.post('/console/v1/corporate/cancellation-request', body)).data);
