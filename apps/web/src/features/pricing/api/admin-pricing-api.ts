import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  pricingListResponseSchema,
  pricingPreviewResponseSchema,
  pricingVersionResponseSchema,
  type PricingPreview,
  type PricingVersion,
  type PricingVersionBody,
  type UpdatePricingVersionBody,
} from '@poi/shared/schemas/pricing';
import { apiClient } from '../../../lib/api-client';
import { getAdmin, postParsed } from '../../../lib/admin-api';
import { adminPricingKeys, adminRevenueKeys } from '../../../lib/admin-query-keys';

const deletedResponseSchema = z.object({ success: z.literal(true) });

export const getPricingHistory = (): Promise<{ versions: PricingVersion[] }> => getAdmin('/console/v1/admin/pricing/history', pricingListResponseSchema);
export const usePricingHistory = () => useQuery({ queryKey: adminPricingKeys.history(), queryFn: getPricingHistory });

/** What a new version would change and for how many users; nothing is saved. */
export const previewPricing = (body: PricingVersionBody): Promise<PricingPreview> => postParsed('/console/v1/admin/pricing/preview', body, pricingPreviewResponseSchema);
export const createPricing = (body: PricingVersionBody): Promise<PricingVersion> =>
  postParsed('/console/v1/admin/pricing/create', body, pricingVersionResponseSchema).then((d) => d.version);
export const updatePricing = (id: number, body: UpdatePricingVersionBody): Promise<PricingVersion> =>
  postParsed(`/console/v1/admin/pricing/update/${id}`, body, pricingVersionResponseSchema).then((d) => d.version);
export async function deletePricing(id: number, reason: string): Promise<void> {
  deletedResponseSchema.parse((await apiClient.post(`/console/v1/admin/pricing/delete/${id}`, { reason })).data);
}

/** Prices apply from tomorrow on, so a write changes the versions and the dashboard's audit entries, no billed money. */
function refreshPricing(client: QueryClient) {
  void client.invalidateQueries({ queryKey: adminPricingKeys.all });
  void client.invalidateQueries({ queryKey: adminRevenueKeys.dashboard() });
}

export function useCreatePricing() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createPricing, onSuccess: () => refreshPricing(client) });
}

export function useUpdatePricing(id: number) {
  const client = useQueryClient();
  return useMutation({ mutationFn: (body: UpdatePricingVersionBody) => updatePricing(id, body), onSuccess: () => refreshPricing(client) });
}

export function useDeletePricing() {
  const client = useQueryClient();
  return useMutation({ mutationFn: ({ id, reason }: { id: number; reason: string }) => deletePricing(id, reason), onSuccess: () => refreshPricing(client) });
}
