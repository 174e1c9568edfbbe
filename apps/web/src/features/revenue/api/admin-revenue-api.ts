import { useQuery } from '@tanstack/react-query';
import {
  adminDashboardResponseSchema,
  platformRevenueResponseSchema,
  providerRevenueDetailResponseSchema,
  providersRevenueResponseSchema,
  type AdminDashboard,
  type PlatformRevenue,
  type ProviderRevenueDetail,
  type ProvidersRevenue,
} from '@poi/shared/schemas/revenue';
import { getAdmin } from '../../../lib/admin-api';
import { adminRevenueKeys } from '../../../lib/admin-query-keys';

export const getPlatformRevenue = (yearMonth: string): Promise<PlatformRevenue> =>
  getAdmin('/console/v1/admin/platform/revenue', platformRevenueResponseSchema, { year_month: yearMonth });
export const getProvidersRevenue = (yearMonth: string): Promise<ProvidersRevenue> =>
  getAdmin('/console/v1/admin/data-providers/revenue', providersRevenueResponseSchema, { year_month: yearMonth });
export const getProviderRevenueDetail = (id: string): Promise<ProviderRevenueDetail> =>
  getAdmin(`/console/v1/admin/data-providers/${encodeURIComponent(id)}/revenue-detail`, providerRevenueDetailResponseSchema);
export const getAdminDashboard = (): Promise<AdminDashboard> => getAdmin('/console/v1/admin/dashboard', adminDashboardResponseSchema);

export const usePlatformRevenue = (yearMonth: string) => useQuery({ queryKey: adminRevenueKeys.platform(yearMonth), queryFn: () => getPlatformRevenue(yearMonth) });
export const useProvidersRevenue = (yearMonth: string) => useQuery({ queryKey: adminRevenueKeys.providers(yearMonth), queryFn: () => getProvidersRevenue(yearMonth) });
export const useProviderDetail = (id: string | null) =>
  useQuery({ queryKey: adminRevenueKeys.provider(id ?? ''), queryFn: () => getProviderRevenueDetail(id!), enabled: !!id });
export const useAdminDashboard = () => useQuery({ queryKey: adminRevenueKeys.dashboard(), queryFn: getAdminDashboard });
