import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { DATASET_FILTERS, DATASET_KEYWORD_MAX, DATASET_SORTS, type DatasetFilter, type DatasetSort } from '@poi/shared/schemas/datasets';

/** Cards per page: fills rows of 1, 2 and 3 columns alike. */
export const DATASET_PAGE_SIZE = 24;

export interface DatasetListState {
  type: DatasetFilter;
  sort: DatasetSort;
  keyword: string;
  page: number;
}

const DEFAULTS: DatasetListState = { type: 'all', sort: 'newest', keyword: '', page: 1 };

const oneOf = <T extends string>(value: string | null, allowed: readonly T[], fallback: T): T =>
  value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;

/** Reads the view from the query string; anything unknown or malformed falls back to the default. */
export function parseDatasetListState(params: URLSearchParams): DatasetListState {
  const page = Number(params.get('page'));
  return {
    type: oneOf(params.get('type'), DATASET_FILTERS, DEFAULTS.type),
    sort: oneOf(params.get('sort'), DATASET_SORTS, DEFAULTS.sort),
    keyword: (params.get('q') ?? '').slice(0, DATASET_KEYWORD_MAX),
    page: Number.isSafeInteger(page) && page >= 1 ? page : DEFAULTS.page,
  };
}

/** The query string of a view: defaults are left out, so the plain path is the default view. */
export function datasetListSearch(state: DatasetListState): string {
  const params = new URLSearchParams();
  if (state.type !== DEFAULTS.type) params.set('type', state.type);
  if (state.keyword.trim()) params.set('q', state.keyword);
  if (state.sort !== DEFAULTS.sort) params.set('sort', state.sort);
  if (state.page !== DEFAULTS.page) params.set('page', String(state.page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The filter, keyword, sort and page of /marketplace and /datasets live in the URL, so a reload
 * or a shared link shows the same view and the back button returns to it. A new filter, sort or
 * page is a history entry; the keyword, applied while typing, replaces the current entry. Any
 * change but the page starts again at page 1.
 */
export function useDatasetListState() {
  const [params, setParams] = useSearchParams();
  const state = parseDatasetListState(params);

  const update = useCallback(
    (changes: Partial<DatasetListState>, options: { replace?: boolean } = {}) => {
      // From the address bar, not from this render's params: a navigation still in its
      // transition (the keyword applied just before a sort was picked) must not be undone.
      const current = parseDatasetListState(new URLSearchParams(window.location.search));
      const next = { ...current, ...changes, page: changes.page ?? 1 };
      setParams(new URLSearchParams(datasetListSearch(next)), { replace: options.replace ?? false });
    },
    [setParams],
  );

  return {
    ...state,
    setType: (type: DatasetFilter) => update({ type }),
    setSort: (sort: DatasetSort) => update({ sort }),
    setKeyword: (keyword: string) => update({ keyword }, { replace: true }),
    /** The link of another page of this view. */
    pageHref: (page: number) => datasetListSearch({ ...state, page }) || '?',
  };
}
