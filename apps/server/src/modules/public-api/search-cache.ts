import type { PoiSearchInput } from '../pois/pois.service';

/**
 * Answers of identical public searches, kept for a moment. A popular search (the cafés around a
 * station, asked by every user of an app) then costs one database query per moment instead of
 * one per call. Every call is still authenticated, limited and billed; only the rows are reused.
 * A write to a dataset's POIs, its price or its existence empties the cache of this instance at
 * once; other instances serve at most TTL_MS-old rows.
 */
const TTL_MS = 2_000;
const MAX_ENTRIES = 2_000;

/** An answer's JSON: a string (the SQL path's JSON.stringify) or UTF-8 bytes (the in-memory index's). */
export type CachedBody = string | Buffer;

export interface SearchCache {
  keyOf(query: PoiSearchInput): string;
  get(key: string): CachedBody | undefined;
  /** Bumped by every clear: an answer read before a write is not stored after it. */
  generation(): number;
  set(key: string, body: CachedBody, generation: number): void;
  clear(): void;
  stats(): { hits: number; misses: number };
}

export function createSearchCache(now: () => number = Date.now): SearchCache {
  const entries = new Map<string, { body: CachedBody; at: number }>();
  let hits = 0;
  let misses = 0;
  let generation = 0;
  return {
    keyOf: (q) =>
      JSON.stringify([[...new Set(q.dataset_id)].sort(), q.keyword ?? null, q.latitude ?? null, q.longitude ?? null, q.radius ?? null, q.limit, q.offset, q.cursor ?? null]),
    get(key) {
      const entry = entries.get(key);
      if (entry && now() - entry.at < TTL_MS) {
        hits += 1;
        return entry.body;
      }
      if (entry) entries.delete(key);
      misses += 1;
      return undefined;
    },
    generation: () => generation,
    set(key, body, readAt) {
      if (readAt !== generation) return;
      if (entries.size >= MAX_ENTRIES) {
        // Oldest first (insertion order): drop the expired ones, or else the oldest tenth.
        const t = now();
        for (const [k, e] of entries) if (t - e.at >= TTL_MS) entries.delete(k);
        if (entries.size >= MAX_ENTRIES) for (const k of [...entries.keys()].slice(0, MAX_ENTRIES / 10)) entries.delete(k);
      }
      entries.set(key, { body, at: now() });
    },
    clear() {
      generation += 1;
      entries.clear();
    },
    stats: () => ({ hits, misses }),
  };
}
