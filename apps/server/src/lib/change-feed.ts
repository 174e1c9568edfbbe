import { randomUUID } from 'node:crypto';
import pg from 'pg';

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
 * this instance's changes are sent with pg_notify. The connection is re-opened after a loss
 * (every cache is then dropped, as changes may have been missed meanwhile).
 */
export function connectPgChangeFeed(feed: ChangeFeed, url: string, log: { warn(obj: object, msg: string): void }) {
  const instance = randomUUID();
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => undefined);
    c.on('end', () => {
      if (closed) return;
      client = undefined;
      retry = setTimeout(() => void connect(), 1000);
    });
    c.on('notification', (msg) => {
      const [from, kind, id] = (msg.payload ?? '').split('|');
      if (from === instance || !KINDS.includes(kind as ChangeKind)) return;
      feed.receive(kind as ChangeKind, id || undefined);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGE_CHANNEL}`);
      const reconnected = client === undefined && retry !== undefined;
      client = c;
      // Changes sent while the connection was down were missed: forget everything once.
      if (reconnected) for (const kind of KINDS) feed.receive(kind);
    } catch (err) {
      log.warn({ err }, 'change notifications: could not listen; other instances follow within their cache lifetimes');
      await c.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 5000);
    }
  };

  feed.setPublisher((kind, id) => {
    client?.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, `${instance}|${kind}|${id ?? ''}`]).catch(() => undefined);
  });

  return {
    ready: connect(),
    async close() {
      closed = true;
      clearTimeout(retry);
      feed.setPublisher(undefined);
      await client?.end().catch(() => undefined);
    },
  };
}
