import type { FastifyBaseLogger } from 'fastify';
import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { closedMonths } from '../invoices/close.repository';
import { addUsagePartition, defaultPartitionMonths, dropUsageMonth, listUsagePartitions, usageMonthHasRows } from './usage-partitions.repository';

/** Months made ahead of time besides the current one: a month's partition exists well before its first search. */
const MONTHS_AHEAD = 2;

export interface UsagePartitionsResult {
  /** Months whose partition was made in this run. */
  created: string[];
  /** Months whose raw events were dropped in this run (past retention, closed). */
  dropped: string[];
  /** Months past retention kept because their close has not run to the end. */
  held: string[];
}

export interface UsagePartitions {
  /** Makes the coming months' partitions, then drops the raw events of closed months past retention. */
  run(at?: Date): Promise<UsagePartitionsResult>;
}

/** 'YYYY-MM' shifted by n months. */
function addMonths(yearMonth: string, n: number): string {
  const [y, m] = yearMonth.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 7);
}

/**
 * The oldest Japan-time month whose raw events are kept at `at`: the current month and the
 * `retentionMonths` before it (docs/billing.md "Usage data").
 */
function oldestKeptMonth(at: Date, retentionMonths: number): string {
  return addMonths(yearMonthOf(at), -retentionMonths);
}

/**
 * The usage-partitions job's body (app.ts's job runner, with the other billing jobs): usage_events
 * is partitioned by Japan-time month (migration 0023). Each run makes the partitions of this month
 * and the next MONTHS_AHEAD (and of any kept month the DEFAULT partition has rows of, moving them
 * there), then detaches and drops every month older than the retention whose close has run to the
 * end. A month not closed is kept whatever its age (its invoices still need it), unless it has no
 * rows. The rollups the screens and invoices read are never touched.
 */
export function createUsagePartitions(deps: { db: Db; retentionMonths: number; log: FastifyBaseLogger; now?: () => Date }): UsagePartitions {
  const { db, log } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    async run(at = now()) {
      const current = yearMonthOf(at);
      const oldestKept = oldestKeptMonth(at, deps.retentionMonths);
      const stray = await defaultPartitionMonths(db);

      const wanted = new Set(Array.from({ length: MONTHS_AHEAD + 1 }, (_, i) => addMonths(current, i)));
      for (const month of stray) if (month >= oldestKept) wanted.add(month);
      const created: string[] = [];
      for (const month of [...wanted].sort()) {
        if (await addUsagePartition(db, month)) created.push(month);
      }

      const expired = new Map<string, string | undefined>();
      for (const p of await listUsagePartitions(db)) if (p.yearMonth < oldestKept) expired.set(p.yearMonth, p.name);
      for (const month of stray) if (month < oldestKept && !expired.has(month)) expired.set(month, undefined);
      const closed = expired.size ? await closedMonths(db) : new Set<string>();
      const dropped: string[] = [];
      const held: string[] = [];
      for (const [month, partition] of [...expired].sort(([a], [b]) => a.localeCompare(b))) {
        // An empty month (made ahead, then no search; or before the first one, which no close
        // ever covers) loses nothing.
        if (!closed.has(month) && (await usageMonthHasRows(db, monthRange(month)))) {
          held.push(month);
          continue;
        }
        await inTransaction(db, (tx) => dropUsageMonth(tx, partition, monthRange(month)));
        dropped.push(month);
      }
      if (created.length || dropped.length) log.info({ created, dropped }, 'usage_events partitions made and raw events past retention dropped');
      if (held.length) log.warn({ held }, 'raw usage events past retention kept: their month is not closed');
      return { created, dropped, held };
    },
  };
}
