import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  adminUserDetailResponseSchema,
  adminUserListResponseSchema,
  adminUserResponseSchema,
  type AdminUser,
  type AdminUserDetail,
  type AdminUserList,
  type ChangeAccountTypeBody,
} from '@poi/shared/schemas/users';
import { getAdmin, postParsed } from '../../../lib/admin-api';
import { adminCorporateKeys, adminRevenueKeys, adminUsersKeys, type Params } from '../../../lib/admin-query-keys';

const userUrl = (id: string) => `/console/v1/admin/users/${encodeURIComponent(id)}`;

export const getAdminUsers = (params: Params): Promise<AdminUserList> => getAdmin('/console/v1/admin/users', adminUserListResponseSchema, params);
export const getAdminUser = (id: string): Promise<AdminUserDetail> => getAdmin(userUrl(id), adminUserDetailResponseSchema);

export const useAdminUsers = (params: Params) => useQuery({ queryKey: adminUsersKeys.list(params), queryFn: () => getAdminUsers(params), placeholderData: keepPreviousData });
export const useAdminUser = (id: string | null) => useQuery({ queryKey: adminUsersKeys.detail(id ?? ''), queryFn: () => getAdminUser(id!), enabled: !!id });

export const suspendUser = (id: string, reason: string): Promise<AdminUser> => postParsed(`${userUrl(id)}/suspend`, { reason }, adminUserResponseSchema).then((d) => d.user);
export const activateUser = (id: string, reason: string): Promise<AdminUser> => postParsed(`${userUrl(id)}/activate`, { reason }, adminUserResponseSchema).then((d) => d.user);
export const changeAccountType = (id: string, body: ChangeAccountTypeBody): Promise<AdminUser> =>
  postParsed(`${userUrl(id)}/change-type`, body, adminUserResponseSchema).then((d) => d.user);

/**
 * A user's row and detail change; the dashboard counts sign-ups by type and lists the audit entry;
 * a corporate account's member list shows the user, so a type change reaches it too.
 */
function refreshUser(client: QueryClient, id: string, alsoCorporate: boolean) {
  void client.invalidateQueries({ queryKey: adminUsersKeys.lists() });
  void client.invalidateQueries({ queryKey: adminUsersKeys.detail(id) });
  void client.invalidateQueries({ queryKey: adminRevenueKeys.dashboard() });
  if (alsoCorporate) void client.invalidateQueries({ queryKey: adminCorporateKeys.details() });
}

export function useSuspendUser(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (reason: string) => suspendUser(id, reason), onSuccess: () => refreshUser(client, id, false) });
}

export function useActivateUser(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (reason: string) => activateUser(id, reason), onSuccess: () => refreshUser(client, id, false) });
}

export function useChangeAccountType(id: string) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: ChangeAccountTypeBody) => changeAccountType(id, body), onSuccess: () => refreshUser(client, id, true) });
}
