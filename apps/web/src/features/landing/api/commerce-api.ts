import { queryOptions, useQuery } from '@tanstack/react-query';
import { commerceResponseSchema, type Commerce } from '@poi/shared/schemas/commerce';
import { getParsed } from '../../../lib/api-client';

export const commerceKeys = { all: ['commerce'] as const };

export async function getCommerce(): Promise<Commerce> {
  return getParsed('/console/v1/commerce', commerceResponseSchema);
}

export const useCommerce = () => useQuery(queryOptions({ queryKey: commerceKeys.all, queryFn: getCommerce, staleTime: 5 * 60_000 }));
