import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  poiRegisterResponseSchema,
  poiResponseSchema,
  poiSearchResponseSchema,
  type Poi,
  type PoiSearchResponse,
  type RegisterPoiBody,
} from '@poi/shared/schemas/poi';
import { apiClient } from '../../../lib/api-client';
import { poiKeys, type PoiListFilters } from './keys';

export async function searchPois(filters: PoiListFilters): Promise<PoiSearchResponse['data']> {
  const res = await apiClient.get('/console/v1/poi/search', {
    params: {
      dataset_id: filters.datasetIds.join(','),
      ...(filters.keyword ? { keyword: filters.keyword } : {}),
      limit: filters.pageSize,
      offset: (filters.page - 1) * filters.pageSize,
    },
  });
  return poiSearchResponseSchema.parse(res.data).data;
}

export const poiListQuery = (filters: PoiListFilters) =>
  queryOptions({ queryKey: poiKeys.list(filters), queryFn: () => searchPois(filters), placeholderData: keepPreviousData });
export const usePoiList = (filters: PoiListFilters, enabled = true) => useQuery({ ...poiListQuery(filters), enabled });

export async function getPoi(poiId: string, datasetId: string): Promise<Poi> {
  const res = await apiClient.get(`/console/v1/poi/${encodeURIComponent(poiId)}`, { params: { dataset_id: datasetId, poi_id: poiId } });
  return poiResponseSchema.parse(res.data).data.poi;
}

export const usePoi = (poiId: string | null, datasetId: string) =>
  useQuery({ queryKey: poiKeys.detail(poiId ?? ''), queryFn: () => getPoi(poiId!, datasetId), enabled: !!poiId });

/** Create, or update when poi_id is given (spec 7). */
export async function registerPoi(body: RegisterPoiBody): Promise<Poi> {
  const res = await apiClient.post('/console/v1/poi/register', body);
  return poiRegisterResponseSchema.parse(res.data).data.poi;
}

export function useRegisterPoi() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: registerPoi,
    onSuccess: (poi) => {
      client.setQueryData(poiKeys.detail(poi.poi_id), poi);
      void client.invalidateQueries({ queryKey: poiKeys.lists() });
    },
  });
}

export async function removePoi(poiId: string): Promise<void> {
  await apiClient.post(`/console/v1/poi/remove/${encodeURIComponent(poiId)}`);
}

export function useRemovePoi() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: removePoi,
    onSuccess: (_v, poiId) => {
      client.removeQueries({ queryKey: poiKeys.detail(poiId) });
      // Gone from the cached pages at once, the total never below 0 (spec 4); then reloaded.
      client.setQueriesData<PoiSearchResponse['data']>({ queryKey: poiKeys.lists() }, (old) =>
        old ? { ...old, pois: old.pois.filter((p) => p.poi_id !== poiId), total: Math.max(0, old.total - 1) } : old,
      );
      void client.invalidateQueries({ queryKey: poiKeys.lists() });
    },
  });
}
