import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { USER_PICKER_LIMIT } from '@poi/shared/limits';
import {
  DATASET_LIST_MAX_LIMIT,
  datasetCreatedResponseSchema,
  datasetDetailResponseSchema,
  datasetListResponseSchema,
  type AssignDatasetBody,
  type CreateDatasetBody,
  type Dataset,
  type DatasetDetail,
  type PriceChangeBody,
} from '@poi/shared/schemas/datasets';
import { adminUserListResponseSchema, type AdminUser } from '@poi/shared/schemas/users';
import { apiClient, getParsed } from '../../../lib/api-client';
import { datasetKeys, type DatasetListFilters } from './keys';

export async function getDatasets(filters: DatasetListFilters, signal?: AbortSignal): Promise<{ datasets: Dataset[]; total: number }> {
  const keyword = filters.keyword?.trim();
  const res = await apiClient.get('/console/v1/datasets/public', {
    params: {
      type: filters.type,
      limit: filters.limit ?? DATASET_LIST_MAX_LIMIT,
      ...(filters.offset ? { offset: filters.offset } : {}),
      ...(filters.sort ? { sort: filters.sort } : {}),
      ...(keyword ? { keyword } : {}),
      ...(filters.managed ? { managed: 'true' } : {}),
    },
    signal,
  });
  return datasetListResponseSchema.parse(res.data).data;
}

export const datasetsQuery = (filters: DatasetListFilters) =>
  queryOptions({ queryKey: datasetKeys.list(filters), queryFn: ({ signal }) => getDatasets(filters, signal) });
/** `keepPrevious`: a new page, keyword or sort keeps showing the previous answer until the next one arrives. */
export const useDatasets = (filters: DatasetListFilters, options: { keepPrevious?: boolean; enabled?: boolean } = {}) =>
  useQuery({ ...datasetsQuery(filters), placeholderData: options.keepPrevious ? keepPreviousData : undefined, enabled: options.enabled });

export async function getDataset(id: string): Promise<DatasetDetail> {
  return getParsed(`/console/v1/datasets/${encodeURIComponent(id)}`, datasetDetailResponseSchema);
}

export const datasetQuery = (id: string) => queryOptions({ queryKey: datasetKeys.detail(id), queryFn: () => getDataset(id) });
export const useDataset = (id: string) => useQuery(datasetQuery(id));

/** Platform admins use assign (editor and recipient); data providers the plain public create. */
export async function createDataset(body: AssignDatasetBody, asPlatformAdmin: boolean): Promise<Dataset> {
  const url = asPlatformAdmin ? '/console/v1/admin/datasets/assign' : '/console/v1/datasets/public/create';
  const payload: CreateDatasetBody | AssignDatasetBody = asPlatformAdmin
    ? body
    : { name: body.name, description: body.description, price_per_search: body.price_per_search };
  const res = await apiClient.post(url, payload);
  return datasetCreatedResponseSchema.parse(res.data).data;
}

export function useCreateDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, asPlatformAdmin }: { body: AssignDatasetBody; asPlatformAdmin: boolean }) => createDataset(body, asPlatformAdmin),
    onSuccess: () => client.invalidateQueries({ queryKey: datasetKeys.lists() }),
  });
}

export async function changePrice(id: string, body: PriceChangeBody): Promise<DatasetDetail> {
  const res = await apiClient.post(`/console/v1/datasets/${encodeURIComponent(id)}/price`, body);
  return datasetDetailResponseSchema.parse(res.data).data;
}

export function useChangePrice(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PriceChangeBody) => changePrice(id, body),
    onSuccess: (detail) => {
      // The new price shows at once; then the dataset is reloaded.
      client.setQueryData(datasetKeys.detail(id), detail);
      void client.invalidateQueries({ queryKey: datasetKeys.all });
    },
  });
}

export async function deleteDataset(id: string): Promise<void> {
  await apiClient.delete(`/console/v1/datasets/${encodeURIComponent(id)}`);
}

export function useDeleteDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteDataset,
    onSuccess: (_void, id) => {
      client.removeQueries({ queryKey: datasetKeys.detail(id) });
      // Removed locally from every cached list, then lists refresh.
      client.setQueriesData<{ datasets: Dataset[]; total: number }>({ queryKey: datasetKeys.lists() }, (old) =>
        old ? { datasets: old.datasets.filter((d) => d.dataset_id !== id), total: Math.max(0, old.total - 1) } : old,
      );
      void client.invalidateQueries({ queryKey: datasetKeys.lists() });
    },
  });
}

/** Data providers for the editor and recipient pickers (admin only): up to 100 per request, narrowed by a keyword. */
export async function getDataProviders(keyword = '', signal?: AbortSignal): Promise<{ users: AdminUser[]; total: number }> {
  const params = { account_type: 'data_provider', limit: USER_PICKER_LIMIT, ...(keyword.trim() ? { keyword: keyword.trim() } : {}) };
  const res = await apiClient.get('/console/v1/admin/users', { params, signal });
  return adminUserListResponseSchema.parse(res.data).data;
}

export const useDataProviders = (enabled: boolean, keyword = '') =>
  useQuery({
    queryKey: [...datasetKeys.providers(), keyword.trim()],
    queryFn: ({ signal }) => getDataProviders(keyword, signal),
    enabled,
    placeholderData: keepPreviousData,
  });
