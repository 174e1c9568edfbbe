import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { datasetRevenueResponseSchema, revenueReportResponseSchema, type DatasetRevenue, type RevenueReport } from '@poi/shared/schemas/usage';
import { getParsed } from '../../../lib/api-client';

export const revenueKeys = {
  all: ['revenue'] as const,
  monthly: (yearMonth: string) => [...revenueKeys.all, 'monthly', yearMonth] as const,
  dataset: (id: string, yearMonth: string) => [...revenueKeys.all, 'dataset', id, yearMonth] as const,
};

export async function getMonthlyRevenue(yearMonth: string): Promise<RevenueReport> {
  return getParsed('/console/v1/datasets/revenue/monthly', revenueReportResponseSchema, { year_month: yearMonth });
}

export async function getDatasetRevenue(id: string, yearMonth: string): Promise<DatasetRevenue> {
  return getParsed(`/console/v1/datasets/revenue/dataset/${encodeURIComponent(id)}`, datasetRevenueResponseSchema, { year_month: yearMonth });
}

export const useMonthlyRevenue = (yearMonth: string) =>
  useQuery({ ...queryOptions({ queryKey: revenueKeys.monthly(yearMonth), queryFn: () => getMonthlyRevenue(yearMonth) }), placeholderData: keepPreviousData });

export const useDatasetRevenue = (id: string | null, yearMonth: string) =>
  useQuery({ queryKey: revenueKeys.dataset(id ?? '', yearMonth), queryFn: () => getDatasetRevenue(id!, yearMonth), enabled: !!id });
