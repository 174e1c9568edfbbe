import type { DatasetFilter, DatasetSort } from '@poi/shared/schemas/datasets';

/** The list call's parameters (README "Dataset lists"); unset ones take the server's defaults. */
export interface DatasetListFilters {
  type: DatasetFilter;
  managed?: boolean;
  keyword?: string;
  sort?: DatasetSort;
  /** Rows per page; 100 (the most the server gives) when unset. */
  limit?: number;
  offset?: number;
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
