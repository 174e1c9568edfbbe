import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A list's view (search, filters, sort, page…) kept in the query string, so a reload or a shared
 * link shows the same view and the back button returns to it. Values equal to their default are
 * left out of the URL; a value not in `allowed` (when given) falls back to the default. Any change
 * but the page goes back to page 1.
 */
export function readUrlParams<K extends string>(search: URLSearchParams, defaults: Record<K, string>, allowed: Partial<Record<K, readonly string[]>> = {}): Record<K, string> {
  const out = { ...defaults };
  for (const k of Object.keys(defaults) as K[]) {
    const v = search.get(k);
    if (v === null) continue;
    const options = allowed[k];
    if (options && !options.includes(v)) continue;
    if (k === ('page' as K) && !(Number.isSafeInteger(Number(v)) && Number(v) >= 1)) continue;
    out[k] = v.slice(0, 200);
  }
  return out;
}

export function writeUrlParams<K extends string>(state: Record<K, string>, defaults: Record<K, string>): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of Object.keys(defaults) as K[]) if (state[k] !== defaults[k] && state[k] !== '') p.set(k, state[k]);
  return p;
}

export function useUrlParams<K extends string>(defaults: Record<K, string>, allowed: Partial<Record<K, readonly string[]>> = {}) {
  const [search, setSearch] = useSearchParams();
  const state = readUrlParams(search, defaults, allowed);
  const update = useCallback(
    (changes: Partial<Record<K, string>>, options: { replace?: boolean } = {}) => {
      const current = readUrlParams(new URLSearchParams(window.location.search), defaults, allowed);
      const next = { ...current, ...changes } as Record<K, string>;
      if ('page' in defaults && !('page' in changes)) (next as Record<string, string>).page = '1';
      setSearch(writeUrlParams(next, defaults), { replace: options.replace ?? false });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [setSearch],
  );
  return [state, update] as const;
}
