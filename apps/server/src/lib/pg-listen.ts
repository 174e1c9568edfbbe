import pg from 'pg';

/** The first retry after a lost LISTEN connection, and the longest wait between two attempts. */
export const LISTEN_RETRY_MIN_MS = 250;
export const LISTEN_RETRY_MAX_MS = 5_000;

export interface PgListener {
  /** Resolves after the first attempt, connected or not (later attempts run in the background). */
  ready: Promise<void>;
  /** Whether the connection is up and listening now. */
  listening(): boolean;
  /** NOTIFY on this connection (nothing happens while it is down). */
  notify(channel: string, payload: string): void;
  close(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs on `channel` and is opened again whenever it is lost (a
 * restart, a failover, pg_terminate_backend, a pooler restart): one attempt at a time, the wait
 * doubling from 250 ms to at most 5 s (with jitter, so that the instances of a fleet do not all
 * come back at the same instant), reset once it listens again.
 *
 * Notifications sent while it was down are lost (PostgreSQL keeps none for a listener that is not
 * connected): `onListening(true)` on every re-connection is where the owner catches up on what it
 * may have missed (the change feed drops its caches, the search index reads its change log).
 *
 * Errors are handled here: a pg Client's 'error' event without a listener ends the process.
 */
export function listenWithRetry(options: {
  url: string;
  channel: string;
  onNotification: (payload: string) => void;
  /** Called each time the connection listens; `again` is false only when the very first attempt succeeded. */
  onListening?: (again: boolean) => void;
  /** The first failure of a series (one line per outage, not one per attempt). */
  onDown?: (err: Error) => void;
  onUp?: () => void;
}): PgListener {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wait = LISTEN_RETRY_MIN_MS;
  let attempts = 0;
  let listenedOnce = false;
  let down = false;

  const schedule = () => {
    if (closed || timer) return;
    const delay = Math.round(wait * (0.75 + Math.random() * 0.5));
    wait = Math.min(wait * 2, LISTEN_RETRY_MAX_MS);
    timer = setTimeout(() => {
      timer = undefined;
      void attempt();
    }, delay);
    timer.unref();
  };

  const lost = (c: pg.Client, err: Error) => {
    if (client !== c) return;
    client = undefined;
    if (!down && !closed) {
      down = true;
      options.onDown?.(err);
    }
    schedule();
  };

  async function attempt(): Promise<void> {
    if (closed) return;
    attempts += 1;
    const c = new pg.Client({ connectionString: options.url, keepAlive: true, connectionTimeoutMillis: 5_000 });
    client = c;
    // Both fire for one loss (an error, then the end); lost() acts once per client.
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('Connection terminated')));
    c.on('notification', (msg) => {
      if (msg.channel === options.channel) options.onNotification(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${options.channel}`);
    } catch (err) {
      lost(c, err as Error);
      await c.end().catch(() => undefined);
      return;
    }
    if (closed || client !== c) {
      await c.end().catch(() => undefined);
      return;
    }
    wait = LISTEN_RETRY_MIN_MS;
    if (down) {
      down = false;
      options.onUp?.();
    }
    listenedOnce = true;
    options.onListening?.(attempts > 1);
  }

  return {
    ready: attempt(),
    listening: () => client !== undefined && listenedOnce && !down,
    notify(channel, payload) {
      client?.query('SELECT pg_notify($1, $2)', [channel, payload]).catch(() => undefined);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
