import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  bulkImportResponseSchema,
  type BulkImportResponse,
  type ImportFormat,
  type ImportMode,
  poiRegisterResponseSchema,
  poiResponseSchema,
  poiSearchResponseSchema,
  type Poi,
  type PoiSearchResponse,
  type RegisterPoiBody,
} from '@poi/shared/schemas/pois';
import { apiClient, getParsed } from '../../../lib/api-client';
import { fileNameOf } from '../../../lib/download';
import { poiKeys, type PoiListFilters } from './keys';

export async function searchPois(filters: PoiListFilters): Promise<PoiSearchResponse['data']> {
  const res = await apiClient.get('/console/v1/poi/search', {
    params: {
      dataset_id: filters.datasetIds.join(','),
      ...(filters.keyword ? { keyword: filters.keyword } : {}),
      ...(filters.point
        ? { latitude: filters.point.latitude, longitude: filters.point.longitude, ...(filters.point.radius ? { radius: filters.point.radius } : {}) }
        : {}),
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
  return (await getParsed(`/console/v1/poi/${encodeURIComponent(poiId)}`, poiResponseSchema, { dataset_id: datasetId, poi_id: poiId })).poi;
}

export const usePoi = (poiId: string | null, datasetId: string) =>
  useQuery({ queryKey: poiKeys.detail(poiId ?? ''), queryFn: () => getPoi(poiId!, datasetId), enabled: !!poiId });

/** Create, or update when poi_id is given. */
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
      // Gone from the cached pages at once, the total never below 0; then reloaded.
      client.setQueriesData<PoiSearchResponse['data']>({ queryKey: poiKeys.lists() }, (old) =>
        old ? { ...old, pois: old.pois.filter((p) => p.poi_id !== poiId), total: Math.max(0, old.total - 1) } : old,
      );
      void client.invalidateQueries({ queryKey: poiKeys.lists() });
    },
  });
}

/** Multipart upload: dataset_id, format and mode, then the file (the server takes any order). */
export async function bulkImportPois(datasetId: string, format: ImportFormat, mode: ImportMode, file: File): Promise<BulkImportResponse> {
  const form = new FormData();
  form.append('dataset_id', datasetId);
  form.append('format', format);
  form.append('mode', mode);
  form.append('file', file);
  const res = await apiClient.post('/console/v1/poi/bulk-import', form, {
    // A 10 MB file is parsed and indexed in one transaction: allow it more than the default 30 s.
    timeout: 120_000,
  });
  return bulkImportResponseSchema.parse(res.data);
}

export function useBulkImport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ datasetId, format, mode, file }: { datasetId: string; format: ImportFormat; mode: ImportMode; file: File }) =>
      bulkImportPois(datasetId, format, mode, file),
    onSuccess: () => void client.invalidateQueries({ queryKey: poiKeys.lists() }),
  });
}

export async function movePoi(poiId: string, targetDatasetId: string): Promise<Poi> {
  const res = await apiClient.post(`/console/v1/poi/move/${encodeURIComponent(poiId)}`, { target_dataset_id: targetDatasetId });
  return poiRegisterResponseSchema.parse(res.data).data.poi;
}

export function useMovePoi() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ poiId, targetDatasetId }: { poiId: string; targetDatasetId: string }) => movePoi(poiId, targetDatasetId),
    onSuccess: (_poi, { poiId }) => {
      client.removeQueries({ queryKey: poiKeys.detail(poiId) });
      client.setQueriesData<PoiSearchResponse['data']>({ queryKey: poiKeys.lists() }, (old) =>
        old ? { ...old, pois: old.pois.filter((p) => p.poi_id !== poiId), total: Math.max(0, old.total - 1) } : old,
      );
      void client.invalidateQueries({ queryKey: poiKeys.lists() });
    },
  });
}

/**
 * A dataset's export, downloaded through the API client so the Bearer header goes with it;
 * `gzip` asks for the compressed file, which the import takes back as it is.
 */
export async function downloadExport(datasetId: string, format: 'csv' | 'geojson', gzip = false): Promise<{ blob: Blob; fileName?: string }> {
  const res = await apiClient.get(`/console/v1/datasets/${encodeURIComponent(datasetId)}/export`, {
    params: { format, ...(gzip ? { compress: 'gzip' } : {}) },
    responseType: 'blob',
    timeout: 120_000,
  });
  return { blob: res.data as Blob, fileName: fileNameOf(res.headers['content-disposition'] as string | undefined) };
}
