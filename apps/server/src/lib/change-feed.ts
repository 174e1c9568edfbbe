import { randomUUID } from 'node:crypto';
import { listenWithRetry } from './pg-listen';

/**
 * Tells the caches that a row changed, so that a suspended user, a revoked key or a new price
 * takes effect on the next request. Listeners of this instance run at once; on PostgreSQL the
 * change is also sent to every other instance (NOTIFY on one channel, see `connectPgChangeFeed`),
 * whose listeners run when it arrives (milliseconds). If that connection is down, the other
 * instances catch up when their short cache lifetimes run out.
 */
export type ChangeKind = 'user' | 'dataset' | 'apiKey' | 'pricing';

export interface ChangeFeed {
  changed(kind: ChangeKind, id?: string): void;
  on(kind: ChangeKind, listener: (id?: string) => void): void;
  /** Where changes are also sent (other instances); set by connectPgChangeFeed. */
  setPublisher(publish: ((kind: ChangeKind, id?: string) => void) | undefined): void;
  /** A change that another instance made: runs this instance's listeners only. */
  receive(kind: ChangeKind, id?: string): void;
}

const KINDS: readonly ChangeKind[] = ['user', 'dataset', 'apiKey', 'pricing'];

export function createChangeFeed(): ChangeFeed {
  const listeners = new Map<ChangeKind, Array<(id?: string) => void>>();
  let publisher: ((kind: ChangeKind, id?: string) => void) | undefined;
  const run = (kind: ChangeKind, id?: string) => {
    for (const listener of listeners.get(kind) ?? []) listener(id);
  };
  return {
    changed(kind, id) {
      run(kind, id);
      publisher?.(kind, id);
    },
    on(kind, listener) {
      listeners.set(kind, [...(listeners.get(kind) ?? []), listener]);
    },
    setPublisher(publish) {
      publisher = publish;
    },
    receive: run,
  };
}

export const CHANGE_CHANNEL = 'poi_changes';

/**
 * Shares a feed's changes between instances on one PostgreSQL database: a dedicated connection
 * LISTENs on CHANGE_CHANNEL and feeds what other instances NOTIFY into this instance's listeners;
 * this instance's changes are sent with pg_notify. The connection is re-opened after a loss, with
 * backoff (lib/pg-listen.ts); every cache is then dropped once, as changes may have been missed
 * meanwhile.
 */
export function connectPgChangeFeed(feed: ChangeFeed, url: string, log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void }) {
  const instance = randomUUID();
  const listener = listenWithRetry({
    url,
    channel: CHANGE_CHANNEL,
    onNotification: (payload) => {
      const [from, kind, id] = payload.split('|');
      if (from === instance || !KINDS.includes(kind as ChangeKind)) return;
      feed.receive(kind as ChangeKind, id || undefined);
    },
    // Changes sent while the connection was down were missed: forget everything once.
    onListening: (again) => {
      if (again) for (const kind of KINDS) feed.receive(kind);
    },
    onDown: (err) => log.warn({ err: { message: err.message } }, 'change notifications: connection lost; listening again with backoff, other instances follow within their cache lifetimes'),
    onUp: () => log.info({}, 'change notifications: listening again; caches dropped'),
  });

  feed.setPublisher((kind, id) => listener.notify(CHANGE_CHANNEL, `${instance}|${kind}|${id ?? ''}`));

  return {
    ready: listener.ready,
    async close() {
      feed.setPublisher(undefined);
      await listener.close();
    },
  };
}
