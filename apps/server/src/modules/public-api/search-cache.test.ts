import { describe, expect, it } from 'vitest';
import { createSearchCache } from './search-cache';

describe('search cache', () => {
  it('reuses an answer for the same search for two seconds, whatever the order of the datasets', () => {
    let t = 1_000;
    const cache = createSearchCache(() => t);
    const q = { dataset_id: ['b', 'a'], keyword: 'カフェ', limit: 20, offset: 0 };
    cache.set(cache.keyOf(q), '{"x":1}', cache.generation());
    expect(cache.get(cache.keyOf({ ...q, dataset_id: ['a', 'b', 'a'] }))).toBe('{"x":1}');
    expect(cache.get(cache.keyOf({ ...q, offset: 20 }))).toBeUndefined();
    expect(cache.get(cache.keyOf({ ...q, latitude: 35, longitude: 139 }))).toBeUndefined();
    t += 2_000;
    expect(cache.get(cache.keyOf(q))).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 1, misses: 3 });
  });

  it('does not keep an answer read before a write that cleared the cache', () => {
    const cache = createSearchCache();
    const key = cache.keyOf({ dataset_id: ['a'], limit: 20, offset: 0 });
    const readAt = cache.generation();
    cache.clear();
    cache.set(key, 'stale', readAt);
    expect(cache.get(key)).toBeUndefined();
  });
});
