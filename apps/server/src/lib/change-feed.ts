/**
 * Tells the caches of this instance that a row changed, so that a suspended user, a revoked key
 * or a new price takes effect on the next request. Other instances catch up when their short
 * cache lifetimes run out.
 */
export type ChangeKind = 'user' | 'dataset' | 'apiKey' | 'pricing';

export interface ChangeFeed {
  changed(kind: ChangeKind, id?: string): void;
  on(kind: ChangeKind, listener: (id?: string) => void): void;
}

export function createChangeFeed(): ChangeFeed {
  const listeners = new Map<ChangeKind, Array<(id?: string) => void>>();
  return {
    changed(kind, id) {
      for (const listener of listeners.get(kind) ?? []) listener(id);
    },
    on(kind, listener) {
      listeners.set(kind, [...(listeners.get(kind) ?? []), listener]);
    },
  };
}
