import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { usageSummaryResponseSchema, type UsageSummary } from '@poi/shared/schemas/usage';
import { getParsed } from '../../../lib/api-client';
import { usageKeys } from '../../../lib/query-keys';

export const USAGE_FETCH_FAILED = '使用量の取得に失敗しました';

export async function getUsageSummary(yearMonth: string): Promise<UsageSummary> {
  return getParsed('/console/v1/usage/summary', usageSummaryResponseSchema, { year_month: yearMonth });
}

/** While /usage is open (and the tab visible) it refreshes this often. */
export const USAGE_REFRESH_SECONDS = 15;

/**
 * Refetched when the window regains focus, so a search made in a terminal shows up on return,
 * and every USAGE_REFRESH_SECONDS while the page is visible.
 */
export const usageSummaryQuery = (yearMonth: string) =>
  queryOptions({
    queryKey: usageKeys.summary(yearMonth),
    queryFn: () => getUsageSummary(yearMonth),
    staleTime: 0,
    refetchOnWindowFocus: true,
    refetchInterval: USAGE_REFRESH_SECONDS * 1000,
  });

export const useUsageSummary = (yearMonth: string) => useQuery({ ...usageSummaryQuery(yearMonth), placeholderData: keepPreviousData });
