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

  it('keys a search by its bbox, tags, category and the answer’s format and fields; the plain key is unchanged', () => {
    const cache = createSearchCache();
    const q = { dataset_id: ['a'], limit: 20, offset: 0 };
    const keys = [
      cache.keyOf(q),
      cache.keyOf({ ...q, bbox: [139, 35, 140, 36] }),
      cache.keyOf({ ...q, bbox: [139, 35, 140, 36.5] }),
      cache.keyOf({ ...q, tags: ['wifi'] }),
      cache.keyOf({ ...q, category: 'カフェ' }),
      cache.keyOf(q, 'geojson'),
      cache.keyOf({ ...q, fields: ['poi_id', 'name'] }),
      cache.keyOf({ ...q, fields: ['poi_id', 'name'] }, 'geojson'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(cache.keyOf(q, 'json')).toBe(keys[0]);
    expect(keys[0]).toBe(JSON.stringify([['a'], null, null, null, null, 20, 0, null]));
  });

  it('does not keep an answer read before a write that cleared the cache', () => {
    const cache = createSearchCache();
    const key = cache.keyOf({ dataset_id: ['a'], limit: 20, offset: 0 });
    const readAt = cache.generation();
    cache.clear();
    cache.set(key, 'stale', readAt);
    expect(cache.get(key)).toBeUndefined();
  });

  it('tells a search that missed within two seconds (its answer is then worth keeping)', () => {
    let t = 1_000;
    const cache = createSearchCache(() => t);
    const a = cache.keyOf({ dataset_id: ['a'], latitude: 35, longitude: 139, limit: 20, offset: 0 });
    const b = cache.keyOf({ dataset_id: ['a'], latitude: 35.0001, longitude: 139, limit: 20, offset: 0 });
    expect(cache.repeated(a)).toBe(false);
    expect(cache.repeated(b)).toBe(false);
    t += 1_999;
    expect(cache.repeated(a)).toBe(true);
    expect(cache.repeated(b)).toBe(true);
    t += 2_000;
    expect(cache.repeated(a)).toBe(false);
    // Many other searches at the same moment do not make a new search look repeated.
    for (let i = 0; i < 10_000; i++) cache.repeated(cache.keyOf({ dataset_id: ['a'], latitude: i, longitude: 139, limit: 20, offset: 0 }));
    expect(cache.repeated(cache.keyOf({ dataset_id: ['a'], latitude: 35.5, longitude: 139, limit: 20, offset: 0 }))).toBe(false);
  });
});
