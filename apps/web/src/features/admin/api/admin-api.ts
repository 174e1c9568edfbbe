import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { corporateDetailResponseSchema, corporateListResponseSchema, type CorporateDetail, type CorporateList } from '@poi/shared/schemas/corporate';
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
import { pendingTransfersResponseSchema, type PendingTransfers } from '@poi/shared/schemas/transfers';
import { pricingListResponseSchema, pricingPreviewResponseSchema, type PricingPreview, type PricingVersion, type PricingVersionBody } from '@poi/shared/schemas/pricing';
import { adminUserDetailResponseSchema, adminUserListResponseSchema, auditLogListResponseSchema, type AdminUserDetail, type AdminUserList, type AuditLogList } from '@poi/shared/schemas/users';
import { apiClient } from '../../../lib/api-client';
import { downloadFile } from '../../../lib/download';

/*
 * The admin calls (spec 7 "Admin"): reads as TanStack queries keyed by their parameters (the
 * screens keep those in the URL), writes as mutations that refresh every admin read.
 */

export type Params = Record<string, string>;
const clean = (p: Params) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== ''));
const get = async <T>(url: string, schema: { parse(v: unknown): { data: T } }, params?: Params): Promise<T> =>
  schema.parse((await apiClient.get(url, { params: params ? clean(params) : undefined })).data).data;

export const adminKeys = { all: ['admin'] as const };
const key = (...parts: unknown[]) => [...adminKeys.all, ...parts];

export const useAdminUsers = (params: Params) =>
  useQuery({ queryKey: key('users', params), queryFn: () => get<AdminUserList>('/console/v1/admin/users', adminUserListResponseSchema, params), placeholderData: keepPreviousData });
export const useAdminUser = (id: string | null) =>
  useQuery({ queryKey: key('user', id), queryFn: () => get<AdminUserDetail>(`/console/v1/admin/users/${id}`, adminUserDetailResponseSchema), enabled: !!id });
export const useAuditLogs = (params: Params) =>
  useQuery({ queryKey: key('audit', params), queryFn: () => get<AuditLogList>('/console/v1/admin/audit-logs', auditLogListResponseSchema, params) });
export const useCorporateList = (params: Params) =>
  useQuery({ queryKey: key('corporate', params), queryFn: () => get<CorporateList>('/console/v1/admin/corporate', corporateListResponseSchema, params), placeholderData: keepPreviousData });
export const useCorporate = (id: string | null) =>
  useQuery({ queryKey: key('corporate-one', id), queryFn: () => get<CorporateDetail>(`/console/v1/admin/corporate/${id}`, corporateDetailResponseSchema), enabled: !!id });
export const usePendingTransfers = (params: Params) =>
  useQuery({
    queryKey: key('transfers', params),
    queryFn: () => get<PendingTransfers>('/console/v1/admin/transfers/pending', pendingTransfersResponseSchema, params),
    placeholderData: keepPreviousData,
  });
export const usePricingHistory = () =>
  useQuery({ queryKey: key('pricing'), queryFn: () => get<{ versions: PricingVersion[] }>('/console/v1/admin/pricing/history', pricingListResponseSchema) });
export const usePlatformRevenue = (yearMonth: string) =>
  useQuery({ queryKey: key('revenue', yearMonth), queryFn: () => get<PlatformRevenue>('/console/v1/admin/platform/revenue', platformRevenueResponseSchema, { year_month: yearMonth }) });
export const useProvidersRevenue = (yearMonth: string) =>
  useQuery({ queryKey: key('providers', yearMonth), queryFn: () => get<ProvidersRevenue>('/console/v1/admin/data-providers/revenue', providersRevenueResponseSchema, { year_month: yearMonth }) });
export const useProviderDetail = (id: string | null) =>
  useQuery({
    queryKey: key('provider', id),
    queryFn: () => get<ProviderRevenueDetail>(`/console/v1/admin/data-providers/${id}/revenue-detail`, providerRevenueDetailResponseSchema),
    enabled: !!id,
  });
export const useAdminDashboard = () => useQuery({ queryKey: key('dashboard'), queryFn: () => get<AdminDashboard>('/console/v1/admin/dashboard', adminDashboardResponseSchema) });

export async function previewPricing(body: PricingVersionBody): Promise<PricingPreview> {
  return pricingPreviewResponseSchema.parse((await apiClient.post('/console/v1/admin/pricing/preview', body)).data).data;
}

/** A write of the admin screens; every admin read is refreshed after it. */
export function useAdminAction<T>(run: (input: T) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.all }) });
}
export const post = (url: string, body: unknown) => apiClient.post(url, body);

export const downloadCsv = (url: string, fallbackName: string, params: Params = {}) => downloadFile(url, fallbackName, clean(params));
