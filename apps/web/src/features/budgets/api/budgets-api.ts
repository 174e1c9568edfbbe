import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { budgetResponseSchema, type Budget } from '@poi/shared/schemas/budgets';
import { apiClient, getParsed } from '../../../lib/api-client';

export const budgetKeys = {
  all: ['budgets'] as const,
  current: () => [...budgetKeys.all, 'current'] as const,
};

export async function getBudget(): Promise<Budget> {
  return getParsed('/console/v1/billing/budget', budgetResponseSchema);
}

export const useBudget = () => useQuery(queryOptions({ queryKey: budgetKeys.current(), queryFn: getBudget }));

export function useSaveBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { monthly_limit: number | null; hard_stop: boolean }) =>
      budgetResponseSchema.parse((await apiClient.post('/console/v1/billing/budget', body)).data).data,
    onSuccess: (budget) => client.setQueryData(budgetKeys.current(), budget),
  });
}
