import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  corporateApplicationResponseSchema,
  corporateDetailResponseSchema,
  corporateListResponseSchema,
  type ActivateCorporateBody,
  type AddCorporateMemberBody,
  type CorporateApplication,
  type CorporateDetail,
  type CorporateList,
  type CreateCorporateBody,
  type UpdateCorporateBody,
} from '@poi/shared/schemas/corporate';
import { getAdmin, postParsed } from '../../../lib/admin-api';
import { adminCorporateKeys, adminRevenueKeys, adminUsersKeys, type Params } from '../../../lib/admin-query-keys';

const corporateUrl = (id: string) => `/console/v1/admin/corporate/${encodeURIComponent(id)}`;

export const getCorporateList = (params: Params): Promise<CorporateList> => getAdmin('/console/v1/admin/corporate', corporateListResponseSchema, params);
export const getCorporate = (id: string): Promise<CorporateDetail> => getAdmin(corporateUrl(id), corporateDetailResponseSchema);

export const useCorporateList = (params: Params) =>
  useQuery({ queryKey: adminCorporateKeys.list(params), queryFn: () => getCorporateList(params), placeholderData: keepPreviousData });
export const useCorporate = (id: string | null) => useQuery({ queryKey: adminCorporateKeys.detail(id ?? ''), queryFn: () => getCorporate(id!), enabled: !!id });

export const createCorporate = (body: CreateCorporateBody): Promise<CorporateDetail> => postParsed('/console/v1/admin/corporate/create', body, corporateDetailResponseSchema);
export const updateCorporate = (id: string, body: UpdateCorporateBody): Promise<CorporateDetail> => postParsed(`${corporateUrl(id)}/update`, body, corporateDetailResponseSchema);
export const suspendCorporate = (id: string, reason: string): Promise<CorporateDetail> => postParsed(`${corporateUrl(id)}/suspend`, { reason }, corporateDetailResponseSchema);
export const rejectCorporate = (id: string, reason: string): Promise<CorporateDetail> => postParsed(`${corporateUrl(id)}/reject`, { reason }, corporateDetailResponseSchema);
/** Approves a pending application, or reactivates a suspended account. */
export const activateCorporate = (id: string, body: ActivateCorporateBody): Promise<CorporateApplication> =>
  postParsed(`${corporateUrl(id)}/activate`, body, corporateApplicationResponseSchema);
export const addCorporateMember = (id: string, body: AddCorporateMemberBody): Promise<CorporateDetail> =>
  postParsed(`${corporateUrl(id)}/members`, body, corporateDetailResponseSchema);
export const removeCorporateMember = (id: string, userId: string, reason: string): Promise<CorporateDetail> =>
  postParsed(`${corporateUrl(id)}/members/${encodeURIComponent(userId)}/remove`, { reason }, corporateDetailResponseSchema);

/**
 * After a write on one account: its detail (taken from the answer when the server sends it), the
 * lists (status, member count, limit), the dashboard (pending applications, audit) and, when the
 * write moves users in or out of the account or changes how they pay, the user screens.
 */
function refreshCorporate(client: QueryClient, id: string, detail: CorporateDetail | null, touchesUsers: boolean) {
  if (detail) client.setQueryData(adminCorporateKeys.detail(id), detail);
  else void client.invalidateQueries({ queryKey: adminCorporateKeys.detail(id) });
  void client.invalidateQueries({ queryKey: adminCorporateKeys.lists() });
  void client.invalidateQueries({ queryKey: adminRevenueKeys.dashboard() });
  if (touchesUsers) void client.invalidateQueries({ queryKey: adminUsersKeys.all });
}

export function useCreateCorporate() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createCorporate, onSuccess: (detail) => refreshCorporate(client, detail.account.id, detail, true) });
}

export function useUpdateCorporate(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: UpdateCorporateBody) => updateCorporate(id, body), onSuccess: (detail) => refreshCorporate(client, id, detail, true) });
}

export function useSuspendCorporate(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (reason: string) => suspendCorporate(id, reason), onSuccess: (detail) => refreshCorporate(client, id, detail, false) });
}

export function useRejectCorporate(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (reason: string) => rejectCorporate(id, reason), onSuccess: (detail) => refreshCorporate(client, id, detail, false) });
}

/** Approval makes the applicant the owner (a corporate user), so the user screens are refreshed too. */
export function useActivateCorporate(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: ActivateCorporateBody) => activateCorporate(id, body), onSuccess: () => refreshCorporate(client, id, null, true) });
}

export function useAddCorporateMember(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: AddCorporateMemberBody) => addCorporateMember(id, body), onSuccess: (detail) => refreshCorporate(client, id, detail, true) });
}

export function useRemoveCorporateMember(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, reason }: { userId: string; reason: string }) => removeCorporateMember(id, userId, reason),
    onSuccess: (detail) => refreshCorporate(client, id, detail, true),
  });
}
