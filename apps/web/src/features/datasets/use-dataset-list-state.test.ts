import { describe, expect, it } from 'vitest';
import { pageWindow } from '../../components/ui/page-links';
import { datasetListSearch, parseDatasetListState } from './use-dataset-list-state';

describe('dataset list URL state', () => {
  it('round-trips filter, keyword, sort and page, leaving defaults out', () => {
    const state = { type: 'paid' as const, keyword: 'ｶﾌｪ 東京', sort: 'price_asc' as const, page: 3 };
    const search = datasetListSearch(state);
    expect(search).toBe('?type=paid&q=%EF%BD%B6%EF%BE%8C%EF%BD%AA+%E6%9D%B1%E4%BA%AC&sort=price_asc&page=3');
    expect(parseDatasetListState(new URLSearchParams(search))).toEqual(state);
    expect(datasetListSearch({ type: 'all', keyword: '  ', sort: 'newest', page: 1 })).toBe('');
  });

  it('falls back to the defaults for anything malformed', () => {
    expect(parseDatasetListState(new URLSearchParams('type=cheap&sort=random&page=-2&q='))).toEqual({ type: 'all', sort: 'newest', keyword: '', page: 1 });
    expect(parseDatasetListState(new URLSearchParams('page=1.5')).page).toBe(1);
    expect(parseDatasetListState(new URLSearchParams('page=abc')).page).toBe(1);
    expect(parseDatasetListState(new URLSearchParams(`q=${'あ'.repeat(150)}`)).keyword).toHaveLength(100);
  });
});

describe('pageWindow', () => {
  it('shows the first, the last and two either side, with gaps only where pages are left out', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(1, 6)).toEqual([1, 2, 3, 'gap', 6]);
    expect(pageWindow(6, 417)).toEqual([1, 'gap', 4, 5, 6, 7, 8, 'gap', 417]);
    // A single left-out page is shown instead of a gap.
    expect(pageWindow(4, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(pageWindow(417, 417)).toEqual([1, 'gap', 415, 416, 417]);
  });
});
