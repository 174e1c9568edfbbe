import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTtlCache } from './ttl-cache';

afterEach(() => vi.useRealTimers());

describe('createTtlCache', () => {
  it('loads once within the lifetime, again after it', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const cache = createTtlCache<string, number>(5_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    vi.setSystemTime(1_004_999);
    expect(await cache.get('a', load)).toBe(1);
    vi.setSystemTime(1_005_000);
    expect(await cache.get('a', load)).toBe(2);
  });

  it('keeps undefined answers too, and never past the value’s own expiry; 0 keeps it out', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const cache = createTtlCache<string, { until: number } | undefined>(5_000);
    let loads = 0;
    const missing = async () => (loads++, undefined);
    await cache.get('x', missing);
    await cache.get('x', missing);
    expect(loads).toBe(1);

    const shortLived = async () => (loads++, { until: 1_000 });
    await cache.get('s', shortLived, (v) => v?.until ?? 0);
    vi.setSystemTime(999);
    await cache.get('s', shortLived, (v) => v?.until ?? 0);
    expect(loads).toBe(2);
    vi.setSystemTime(1_000);
    await cache.get('s', shortLived, (v) => v?.until ?? 0);
    expect(loads).toBe(3);

    await cache.get('n', missing, () => 0);
    await cache.get('n', missing, () => 0);
    expect(loads).toBe(5);
  });

  it('forgets matching entries, one key, or everything; starts afresh past its size', async () => {
    const cache = createTtlCache<string, string>(60_000, 3);
    const loads: string[] = [];
    const load = (v: string) => async () => (loads.push(v), v);
    for (const k of ['a', 'b', 'c']) await cache.get(k, load(k));
    cache.forget((v) => v === 'b');
    cache.delete('c');
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('c', load('c'));
    expect(loads).toEqual(['a', 'b', 'c', 'b', 'c']);
    await cache.get('d', load('d')); // a fourth key: the cache is emptied first
    await cache.get('a', load('a'));
    expect(loads.slice(5)).toEqual(['d', 'a']);
    cache.forget();
    await cache.get('d', load('d'));
    expect(loads.at(-1)).toBe('d');
    expect(loads).toHaveLength(8);
  });
});
