export interface PoiListFilters {
  datasetIds: string[];
  keyword?: string;
  point?: { latitude: number; longitude: number; radius?: number };
  page: number;
  pageSize: number;
}

/** Query keys of the POI feature: all → list(filters) → detail(id). */
export const poiKeys = {
  all: ['pois'] as const,
  lists: () => [...poiKeys.all, 'list'] as const,
  list: (filters: PoiListFilters) => [...poiKeys.lists(), filters] as const,
  details: () => [...poiKeys.all, 'detail'] as const,
  detail: (id: string) => [...poiKeys.details(), id] as const,
};
