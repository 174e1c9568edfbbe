/**
 * What requests would otherwise ask the database for again and again (sessions, API keys,
 * dataset owners and prices), kept in this process for a few seconds. Writes on this instance
 * drop entries at once through the change feed; other instances catch up when the lifetime runs
 * out. Past `max` entries it starts afresh instead of tracking recency: a burst of unknown keys
 * costs queries, never memory.
 */
export interface TtlCache<K, V> {
  /**
   * The live cached value, or what `load` answers (kept as well, undefined included). `expiresAt`
   * may shorten an entry's life to the value's own expiry (epoch ms); 0 keeps it out of the cache.
   */
  get(key: K, load: () => Promise<V>, expiresAt?: (value: V) => number): Promise<V>;
  /** Drops the entries whose value matches, or every entry without a predicate. */
  forget(match?: (value: V) => boolean): void;
  delete(key: K): void;
}

export function createTtlCache<K, V>(lifetimeMs: number, max = 10_000): TtlCache<K, V> {
  const entries = new Map<K, { value: V; until: number }>();
  return {
    async get(key, load, expiresAt) {
      const hit = entries.get(key);
      if (hit && Date.now() < hit.until) return hit.value;
      entries.delete(key);
      const value = await load();
      const now = Date.now();
      const until = Math.min(now + lifetimeMs, expiresAt?.(value) ?? Infinity);
      if (until > now) {
        if (entries.size >= max) entries.clear();
        entries.set(key, { value, until });
      }
      return value;
    },
    forget(match) {
      if (!match) return entries.clear();
      for (const [key, entry] of entries) if (match(entry.value)) entries.delete(key);
    },
    delete: (key) => void entries.delete(key),
  };
}
