import type { DatasetFilter } from '@poi/shared/schemas/dataset';

export interface DatasetListFilters {
  type: DatasetFilter;
  managed?: boolean;
}

/** Query keys of the datasets feature: all → list(filters) → detail(id). */
export const datasetKeys = {
  all: ['datasets'] as const,
  lists: () => [...datasetKeys.all, 'list'] as const,
  list: (filters: DatasetListFilters) => [...datasetKeys.lists(), filters] as const,
  details: () => [...datasetKeys.all, 'detail'] as const,
  detail: (id: string) => [...datasetKeys.details(), id] as const,
  providers: () => [...datasetKeys.all, 'providers'] as const,
};
