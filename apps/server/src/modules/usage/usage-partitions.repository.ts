import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

/** A month's partition of usage_events: usage_events_YYYY_MM (migration 0023). */
const MONTH_PARTITION = /^usage_events_(\d{4})_(\d{2})$/;

export interface UsagePartition {
  name: string;
  /** The Japan-time month it holds, 'YYYY-MM'. */
  yearMonth: string;
}

/**
 * Makes the partition of a Japan-time month unless it exists, moving that month's rows out of the
 * DEFAULT partition (the SQL function of migration 0023). True when it was made now.
 */
export async function addUsagePartition(ex: Executor, yearMonth: string): Promise<boolean> {
  const result = await ex.execute<{ created: boolean }>(sql`SELECT usage_events_add_partition(${`${yearMonth}-01`}::date) AS created`);
  return result.rows[0]?.created === true;
}

/** The monthly partitions attached to usage_events, oldest first (the DEFAULT one left out). */
export async function listUsagePartitions(ex: Executor): Promise<UsagePartition[]> {
  const result = await ex.execute<{ name: string }>(sql`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'usage_events'::regclass ORDER BY c.relname`);
  return result.rows.flatMap((r) => {
    const m = MONTH_PARTITION.exec(r.name);
    return m ? [{ name: r.name, yearMonth: `${m[1]}-${m[2]}` }] : [];
  });
}

/** The Japan-time months that have rows in the DEFAULT partition (none, normally). */
export async function defaultPartitionMonths(ex: Executor): Promise<string[]> {
  const result = await ex.execute<{ month: string }>(sql`
    SELECT DISTINCT to_char((occurred_at AT TIME ZONE 'UTC') + interval '9 hours', 'YYYY-MM') AS month
    FROM usage_events_default ORDER BY 1`);
  return result.rows.map((r) => r.month);
}

/** Whether any raw event of a Japan-time month is stored (one partition read, pruned to the month). */
export async function usageMonthHasRows(ex: Executor, range: { start: Date; end: Date }): Promise<boolean> {
  const result = await ex.execute<{ found: boolean }>(sql`
    SELECT EXISTS (
      SELECT 1 FROM usage_events
      WHERE occurred_at >= ${range.start.toISOString()}::timestamptz AND occurred_at < ${range.end.toISOString()}::timestamptz
    ) AS found`);
  return result.rows[0]?.found === true;
}

/**
 * Removes a month's raw events for good: its partition detached and dropped (no row-by-row
 * delete), and its rows in the DEFAULT partition deleted. The rollups are not touched.
 * Answers the number of rows the DEFAULT partition lost.
 */
export async function dropUsageMonth(ex: Executor, partition: string | undefined, range: { start: Date; end: Date }): Promise<number> {
  if (partition !== undefined) {
    if (!MONTH_PARTITION.test(partition)) throw new Error(`not a usage_events month partition: ${partition}`);
    await ex.execute(sql`ALTER TABLE usage_events DETACH PARTITION ${sql.identifier(partition)}`);
    await ex.execute(sql`DROP TABLE ${sql.identifier(partition)}`);
  }
  const deleted = await ex.execute<{ n: number }>(sql`
    WITH gone AS (
      DELETE FROM usage_events_default
      WHERE occurred_at >= ${range.start.toISOString()}::timestamptz AND occurred_at < ${range.end.toISOString()}::timestamptz
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM gone`);
  return Number(deleted.rows[0]?.n ?? 0);
}
