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
/** Slots of the table of recent misses (a power of two). */
const SEEN_SLOTS = 4_096;

/** An answer's JSON: a string (the SQL path's JSON.stringify) or UTF-8 bytes (the in-memory index's). */
export type CachedBody = string | Buffer;

export interface SearchCache {
  /** The key of a search and the shape of its answer (format, and the query's fields). */
  keyOf(query: PoiSearchInput & { fields?: readonly string[] }, format?: 'json' | 'geojson'): string;
  get(key: string): CachedBody | undefined;
  /** Bumped by every clear: an answer read before a write is not stored after it. */
  generation(): number;
  set(key: string, body: CachedBody, generation: number): void;
  /**
   * Whether this search missed the cache before, within TTL_MS (it is then worth keeping); notes
   * this miss. Answers of the in-memory index are kept only then: they cost tens of microseconds
   * to make, while keeping every answer of searches that never repeat (a different point each)
   * cost more than it saved (its buffer and entry held for seconds: old-generation garbage and
   * longer GC pauses). A popular search is kept from its second call on.
   */
  repeated(key: string): boolean;
  clear(): void;
  stats(): { hits: number; misses: number };
}

export function createSearchCache(now: () => number = Date.now): SearchCache {
  const entries = new Map<string, { body: CachedBody; at: number }>();
  let hits = 0;
  let misses = 0;
  let generation = 0;
  // Recent misses by a hash of their key: a slot holds the last key's hash and when it missed (no
  // key kept, nothing allocated). Two keys sharing a hash only make an answer kept early.
  const seenHash = new Int32Array(SEEN_SLOTS);
  const seenAt = new Float64Array(SEEN_SLOTS).fill(-Infinity);
  return {
    keyOf: (q, format = 'json') => {
      const key: unknown[] = [[...new Set(q.dataset_id)].sort(), q.keyword ?? null, q.latitude ?? null, q.longitude ?? null, q.radius ?? null, q.limit, q.offset, q.cursor ?? null];
      // Appended only when given: the common search's key stays as short as before.
      if (q.bbox || q.tags || q.category !== undefined || format === 'geojson' || q.fields) {
        key.push(q.bbox ?? null, q.tags ?? null, q.category ?? null, format, q.fields ?? null);
      }
      return JSON.stringify(key);
    },
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
    repeated(key) {
      // FNV-1a over the key's UTF-16 code units.
      let h = 0x811c9dc5;
      for (let k = 0; k < key.length; k++) h = Math.imul(h ^ key.charCodeAt(k), 0x01000193);
      const slot = (h >>> 0) & (SEEN_SLOTS - 1);
      const t = now();
      const again = seenHash[slot] === h && t - seenAt[slot]! < TTL_MS;
      seenHash[slot] = h;
      seenAt[slot] = t;
      return again;
    },
    clear() {
      generation += 1;
      entries.clear();
    },
    stats: () => ({ hits, misses }),
  };
}
