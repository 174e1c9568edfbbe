import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { USAGE_FLUSH_INTERVAL_MS } from '@poi/shared/limits';
import type { Db } from '../../db/client';

/** One billable search, priced when it happened (ARCHITECTURE.md "Money"). */
export interface UsageEvent {
  requestId: string;
  occurredAt: Date;
  /** The Japanese calendar day of occurredAt, 'YYYY-MM-DD'. */
  day: string;
  userId: string;
  apiKeyId: string;
  accountType: string;
  pricingVersionId: number;
  datasetIds: string[];
  datasetPricesSen: number[];
  datasetSharesBp: number[];
  datasetRecipientIds: string[];
  baseFeeSen: number;
  amountSen: number;
  free: boolean;
}

/** Events waiting beyond this many mean the database is not keeping up: new searches are refused. */
const DEFAULT_MAX_PENDING = 200_000;
/** The longest wait between two flushes that failed (a database away is written to within this of its return). */
const MAX_RETRY_MS = 4_000;
/** Events written per statement; a longer backlog is written in several. */
const FLUSH_BATCH = 5_000;

export interface UsageMeter {
  /** Queues a billable search; it reaches the database with the next flush (at most a second later). */
  record(event: UsageEvent): void;
  /** False while the backlog is over its limit (the database is down or far behind). */
  accepting(): boolean;
  /** Writes every queued event; resolves, with how many were new, when they are stored. Concurrent calls share one run. */
  flush(): Promise<number>;
  /** Events not yet stored. */
  pending(): number;
  start(): void;
  /** Stops the timer and writes what is left (SIGTERM, app close). */
  stop(): Promise<void>;
}

/**
 * Inserts the events and adds only the newly inserted ones to the daily rollups, in one statement:
 * a flush retried after an unknown outcome (a timeout after the commit) finds its request ids
 * already stored and adds nothing, so no search is ever counted twice.
 */
export async function writeUsageEvents(db: Db, events: readonly UsageEvent[]): Promise<number> {
  if (!events.length) return 0;
  const payload = JSON.stringify(
    events.map((e) => ({
      request_id: e.requestId,
      occurred_at: e.occurredAt.toISOString(),
      day: e.day,
      user_id: e.userId,
      api_key_id: e.apiKeyId,
      account_type: e.accountType,
      pricing_version_id: e.pricingVersionId,
      dataset_ids: e.datasetIds,
      dataset_prices_sen: e.datasetPricesSen,
      dataset_shares_bp: e.datasetSharesBp,
      dataset_recipient_ids: e.datasetRecipientIds,
      base_fee_sen: e.baseFeeSen,
      amount_sen: e.amountSen,
      free: e.free,
    })),
  );
  const result = await db.execute(sql`
    WITH input AS (
      SELECT * FROM json_to_recordset(${payload}::json) AS x(
        request_id uuid, occurred_at timestamptz, day date, user_id uuid, api_key_id uuid, account_type text,
        pricing_version_id bigint, dataset_ids uuid[], dataset_prices_sen integer[], dataset_shares_bp integer[],
        dataset_recipient_ids uuid[], base_fee_sen integer, amount_sen integer, free boolean)
    ),
    inserted AS (
      INSERT INTO usage_events (request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id,
        dataset_ids, dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free)
      SELECT request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id,
        dataset_ids, dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free
      FROM input
      ON CONFLICT (request_id) DO NOTHING
      RETURNING request_id
    ),
    fresh AS (
      SELECT input.* FROM input JOIN inserted USING (request_id)
    ),
    daily AS (
      INSERT INTO usage_daily (user_id, day, api_key_id, searches, free_searches, amount_sen)
      SELECT user_id, day, api_key_id, count(*), count(*) FILTER (WHERE free), sum(amount_sen)
      FROM fresh GROUP BY user_id, day, api_key_id
      ON CONFLICT (user_id, day, api_key_id) DO UPDATE SET
        searches = usage_daily.searches + EXCLUDED.searches,
        free_searches = usage_daily.free_searches + EXCLUDED.free_searches,
        amount_sen = usage_daily.amount_sen + EXCLUDED.amount_sen
    ),
    per_dataset AS (
      INSERT INTO usage_dataset_daily (dataset_id, day, user_id, recipient_id, searches, amount_sen, revenue_units)
      SELECT d.dataset_id, f.day, f.user_id, d.recipient_id, count(*), sum(d.price_sen), sum(d.price_sen::bigint * d.share_bp)
      FROM fresh f
      CROSS JOIN LATERAL unnest(f.dataset_ids, f.dataset_prices_sen, f.dataset_shares_bp, f.dataset_recipient_ids)
        AS d(dataset_id, price_sen, share_bp, recipient_id)
      GROUP BY d.dataset_id, f.day, f.user_id, d.recipient_id
      ON CONFLICT (dataset_id, day, user_id, recipient_id) DO UPDATE SET
        searches = usage_dataset_daily.searches + EXCLUDED.searches,
        amount_sen = usage_dataset_daily.amount_sen + EXCLUDED.amount_sen,
        revenue_units = usage_dataset_daily.revenue_units + EXCLUDED.revenue_units
    )
    -- Data-modifying CTEs run whether or not the final SELECT reads them.
    SELECT count(*)::int AS inserted FROM inserted
  `);
  return Number((result.rows[0] as { inserted: number } | undefined)?.inserted ?? 0);
}

export function createUsageMeter(deps: {
  db: Db;
  log: FastifyBaseLogger;
  /** Called after a flush with the keys it saw, to stamp their last use. */
  onFlushed?: (apiKeyIds: string[], at: Date) => Promise<void>;
  /** Called with each batch as soon as it is stored (the budget guard moves it to its stored part). */
  onWritten?: (events: readonly UsageEvent[]) => void;
  /**
   * Run at the end of every flush run, inside it: nothing is being written meanwhile, so what it
   * reads of the usage tables is exactly the events written so far (the budget guard's loads and
   * alerts). Must not throw.
   */
  afterFlush?: () => Promise<void>;
  intervalMs?: number;
  maxPending?: number;
  /** Replaceable in tests to simulate failures. */
  write?: (events: readonly UsageEvent[]) => Promise<number>;
}): UsageMeter {
  const { log } = deps;
  const intervalMs = deps.intervalMs ?? USAGE_FLUSH_INTERVAL_MS;
  const maxPending = deps.maxPending ?? DEFAULT_MAX_PENDING;
  const write = deps.write ?? ((events: readonly UsageEvent[]) => writeUsageEvents(deps.db, events));
  let buffer: UsageEvent[] = [];
  let timer: NodeJS.Timeout | undefined;

  async function drain(): Promise<number> {
    let stored = 0;
    while (buffer.length) {
      const batch = buffer.slice(0, FLUSH_BATCH);
      buffer = buffer.slice(batch.length);
      try {
        stored += await write(batch);
      } catch (err) {
        // Kept, in front, with the same request ids: the retry stores each event exactly once.
        buffer = batch.concat(buffer);
        throw err;
      }
      deps.onWritten?.(batch);
      if (deps.onFlushed) {
        const keys = [...new Set(batch.map((e) => e.apiKeyId))];
        deps.onFlushed(keys, batch[batch.length - 1]!.occurredAt).catch((err) => log.warn({ err }, 'api key last-used update failed'));
      }
    }
    if (deps.afterFlush) await deps.afterFlush();
    return stored;
  }
  let running: Promise<number> | undefined;

  const meter: UsageMeter = {
    record(event) {
      buffer.push(event);
    },
    accepting: () => buffer.length < maxPending,
    pending: () => buffer.length,
    flush() {
      running ??= drain().finally(() => {
        running = undefined;
      });
      return running;
    },
    start() {
      if (timer) return;
      // A failed flush keeps its events (in front, same request ids) and is tried again after a
      // wait that doubles from the interval up to MAX_RETRY_MS: the database may be restarting or
      // failing over. One error line per outage, one line when the backlog is stored.
      let failures = 0;
      let retryAt = 0;
      timer = setInterval(() => {
        if (Date.now() < retryAt || running) return;
        meter.flush().then(
          () => {
            if (failures) log.warn({ failures }, 'usage flush succeeded again; the buffered events are stored');
            failures = 0;
            retryAt = 0;
          },
          (err: Error) => {
            if (!failures) log.error({ err: { message: err.message }, pending: buffer.length }, 'usage flush failed; events kept and retried with backoff');
            failures += 1;
            retryAt = Date.now() + Math.min(intervalMs * 2 ** (failures - 1), MAX_RETRY_MS);
          },
        );
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      // A flush already under way finishes first; then whatever arrived meanwhile is written.
      let stored = 0;
      for (let attempt = 1; ; attempt++) {
        try {
          stored += (await running?.catch(() => 0)) ?? 0;
          stored += await meter.flush();
          log.info({ stored }, 'usage stored at shutdown');
          return;
        } catch (err) {
          if (attempt >= 3) {
            log.error({ err, lost: buffer.length }, 'usage could not be stored at shutdown');
            throw err;
          }
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    },
  };
  return meter;
}
