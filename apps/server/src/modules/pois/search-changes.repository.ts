import { eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client';
import type { Tx } from '../../db/transaction';
import { datasets } from '../../db/schema/datasets';
import { searchChanges } from '../../db/schema/search-changes';
import type { IndexPage } from './dataset-index';

/** Date.toISOString() of a timestamp, from PostgreSQL: milliseconds truncated, as the driver's Date keeps them. */
const ISO_MS = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

export interface PoiRow extends Record<string, unknown> {
  id: string;
  dataset_id: string;
  latitude: number;
  longitude: number;
  /** The answer's JSON up to the name, and from the address on (without the closing brace). */
  head: string;
  tail: string;
  search_text: string;
}

/**
 * A POI's answer serialised by PostgreSQL (a build's pages and the POIs a change names alike),
 * toPoi's keys in its order as JSON.stringify writes them (to_json escapes strings the same way; a
 * null column is null): a million rows cost a fraction of what parsing every column and writing
 * the JSON here does. The coordinates go between the two parts, written once by the index in
 * JavaScript's number format. The parity tests compare these bytes with the SQL path's answers.
 */
const HEAD = `'{"poi_id":"' || id || '","dataset_id":"' || dataset_id || '","name":' || to_json(name)::text`;
const TAIL = `',"address":' || coalesce(to_json(address)::text, 'null') || ',"category":' || coalesce(to_json(category)::text, 'null') || ',"description":' || coalesce(to_json(description)::text, 'null') || ',"phone":' || coalesce(to_json(phone)::text, 'null') || ',"website":' || coalesce(to_json(website)::text, 'null') || ',"image_url":' || coalesce(to_json(image_url)::text, 'null') || ',"tags":' || to_json(tags)::text || ',"created_at":"' || to_char(created_at AT TIME ZONE 'UTC', '${ISO_MS}') || '","updated_at":"' || to_char(updated_at AT TIME ZONE 'UTC', '${ISO_MS}') || '"'`;

/** The POIs of these ids as they are now (those that no longer exist are absent). */
export async function readPois(ex: Executor, ids: string[]): Promise<PoiRow[]> {
  return (
    await ex.execute<PoiRow>(
      sql`SELECT id, dataset_id, latitude, longitude, search_text, ${sql.raw(HEAD)} AS head, ${sql.raw(TAIL)} AS tail FROM pois WHERE id = ANY(${sql.param(ids)}::uuid[])`,
    )
  ).rows;
}

/**
 * The type-ahead's PostgreSQL path (suggest.ts): POIs of the datasets whose search text, for at
 * least one of `anyOf`'s lists, holds a character of each of its groups (an empty list: every
 * POI), after `afterId` in id order, `limit` at most, as readPois reads them.
 */
export async function readSuggestRows(ex: Executor, datasetIds: string[], anyOf: string[][][], afterId: string | null, limit: number): Promise<PoiRow[]> {
  const holds = anyOf.some((groups) => !groups.length)
    ? sql`true`
    : sql.join(
        anyOf.map(
          (groups) =>
            sql`(${sql.join(
              groups.map((chars) => sql`(${sql.join(chars.map((c) => sql`strpos(search_text, ${c}) > 0`), sql` OR `)})`),
              sql` AND `,
            )})`,
        ),
        sql` OR `,
      );
  return (
    await ex.execute<PoiRow>(
      sql`SELECT id, dataset_id, latitude, longitude, search_text, ${sql.raw(HEAD)} AS head, ${sql.raw(TAIL)} AS tail
            FROM pois
           WHERE dataset_id = ANY(${sql.param(datasetIds)}::uuid[]) AND (${holds})${afterId ? sql` AND id > ${afterId}::uuid` : sql``}
           ORDER BY id
           LIMIT ${limit}`,
    )
  ).rows;
}

/**
 * A build page's lists (dataset-index IndexPage): every aggregate takes the rows in the same
 * sequence, so the lists agree. Each search text ends with a line feed; one inside it (a row
 * folded before migration 0014 may hold one) becomes a space, as long in bytes, which no keyword
 * word holds either.
 */
const PAGE_LISTS = sql.raw(`count(*)::int AS count,
  coalesce(string_agg(id::text, ''), '') AS ids,
  coalesce(string_agg(latitude::text || ',' || longitude::text, ','), '') AS coords,
  coalesce(string_agg(head || tail, ''), '') AS json,
  coalesce(string_agg(octet_length(head)::text || ',' || octet_length(tail)::text, ','), '') AS "jsonLengths",
  coalesce(string_agg(translate(search_text, E'\\n', ' ') || E'\\n', ''), '') AS texts,
  coalesce(string_agg(octet_length(search_text)::text, ','), '') AS "textLengths"`);
const PAGE_COLUMNS = sql.raw(`id, latitude, longitude, created_at, search_text, ${HEAD} AS head, ${TAIL} AS tail`);

/**
 * A keyset build page: the next pageSize POIs of a dataset newest first (through
 * pois_dataset_created_idx), with the keyset of its last row: the smallest (created_at, id), so
 * created_at is the page's minimum and the id the list's last (checked: the lists follow the order
 * the rows arrive in, not an ORDER BY per aggregate, which would sort the page seven times).
 */
function keysetPageQuery(datasetId: string, pageSize: number, after?: { ts: string; id: string }) {
  return sql`
    WITH page AS (
      SELECT ${PAGE_COLUMNS}
        FROM pois
       WHERE dataset_id = ${datasetId}${after ? sql` AND (created_at, id) < (${after.ts}::timestamptz, ${after.id}::uuid)` : sql``}
       ORDER BY created_at DESC, id DESC
       LIMIT ${pageSize})
    SELECT ${PAGE_LISTS},
           min(created_at)::text AS "lastTs",
           min(id::text) FILTER (WHERE created_at = (SELECT min(created_at) FROM page)) AS "lastId"
      FROM page`;
}

/** A build page of the dataset's rows in table blocks [from, to) (TID range scan). */
function blockPageQuery(datasetId: string, from: number, to: number | undefined) {
  return sql`
    SELECT ${PAGE_LISTS}
      FROM (SELECT ${PAGE_COLUMNS}
              FROM pois
             WHERE ctid >= ${`(${from},0)`}::tid${to === undefined ? sql`` : sql` AND ctid < ${`(${to},0)`}::tid`} AND dataset_id = ${datasetId}) AS page`;
}

export type PageResult = IndexPage & Record<string, unknown> & { lastTs: string | null; lastId: string | null };

async function fetchPage(ex: Executor, query: SQL): Promise<PageResult> {
  return (await ex.execute<PageResult>(query)).rows[0]!;
}

/** A keyset build page of a dataset (keysetPageQuery). */
export function readKeysetPage(ex: Executor, datasetId: string, pageSize: number, after?: { ts: string; id: string }): Promise<PageResult> {
  return fetchPage(ex, keysetPageQuery(datasetId, pageSize, after));
}

/** A build page of the dataset's rows in table blocks [from, to) (blockPageQuery). */
export function readBlockPage(ex: Executor, datasetId: string, from: number, to: number | undefined): Promise<PageResult> {
  return fetchPage(ex, blockPageQuery(datasetId, from, to));
}

/** A dataset's POI count, or undefined when it is gone. */
export async function datasetPoiCount(ex: Executor, id: string): Promise<number | undefined> {
  const [row] = await ex.select({ poiCount: datasets.poiCount }).from(datasets).where(eq(datasets.id, id));
  return row?.poiCount;
}

/**
 * The pois table's size now, in blocks (relpages may be older than a bulk import), and its row
 * count as last estimated.
 */
export async function poisTableSize(ex: Executor): Promise<{ blocks: number; tuples: number } | undefined> {
  const [table] = (
    await ex.execute<{ blocks: number; tuples: number }>(
      sql`SELECT (pg_relation_size('pois') / current_setting('block_size')::int)::int AS blocks, reltuples AS tuples FROM pg_class WHERE oid = 'pois'::regclass`,
    )
  ).rows;
  return table;
}

/** Every dataset, the smallest first (the order a start-up builds them in). */
export async function datasetIdsBySize(ex: Executor): Promise<string[]> {
  const rows = await ex.select({ id: datasets.id }).from(datasets).orderBy(datasets.poiCount);
  return rows.map((r) => r.id);
}

/** Which of these datasets still exist. */
export async function existingDatasetIds(ex: Executor, ids: string[]): Promise<Set<string>> {
  const alive = await ex.select({ id: datasets.id }).from(datasets).where(inArray(datasets.id, ids));
  return new Set(alive.map((r) => r.id));
}

/**
 * Runs a read of the change log in one read-only repeatable-read transaction, so the log and the
 * POIs it names are read in one snapshot. `ready` is called once the transaction is set up and
 * before its snapshot is asked for (a commit after that is not in it); `work` gets the snapshot
 * (pg_snapshot text) and the transaction's start by the database's clock (ms since the epoch: no
 * later than the snapshot, as the log's created_at of a transaction is its start).
 */
export function inLogSnapshot<T>(db: Db, ready: () => void, work: (tx: Tx, snapshot: string, at: number) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    ready();
    const {
      rows: [snap],
    } = await tx.execute<{ snapshot: string; at: number }>(sql`SELECT pg_current_snapshot()::text AS snapshot, (extract(epoch FROM now()) * 1000)::float8 AS at`);
    return work(tx, snap!.snapshot, Number(snap!.at));
  });
}

/**
 * Whether a position read from a snapshot file is not ahead of the database's present one (a
 * file written against another database, or one restored from an older backup, can be).
 */
export async function positionNotAhead(ex: Executor, from: string): Promise<boolean> {
  const {
    rows: [row],
  } = await ex.execute<{ ok: boolean }>(sql`SELECT pg_snapshot_xmax(${from}::pg_snapshot) <= pg_snapshot_xmax(pg_current_snapshot()) AS ok`);
  return row?.ok === true;
}

/**
 * The log's rows of transactions that committed after the snapshot `from` was taken and before
 * the transaction's own (txid not visible in the old snapshot, visible in the new one), in order;
 * those of one dataset when it is given (a snapshot file's catch-up).
 */
export async function changesSince(ex: Executor, from: string, datasetId?: string) {
  return ex
    .select({ kind: searchChanges.kind, datasetId: searchChanges.datasetId, poiId: searchChanges.poiId })
    .from(searchChanges)
    .where(
      sql`${searchChanges.txid} >= pg_snapshot_xmin(${from}::pg_snapshot) AND NOT pg_visible_in_snapshot(${searchChanges.txid}, ${from}::pg_snapshot)${datasetId ? sql` AND ${searchChanges.datasetId} = ${datasetId}` : sql``}`,
    )
    .orderBy(searchChanges.seq);
}

/** Deletes the log's rows older than `retentionMs`. */
export async function pruneSearchChanges(ex: Executor, retentionMs: number): Promise<void> {
  await ex.delete(searchChanges).where(sql`${searchChanges.createdAt} < now() - make_interval(secs => ${retentionMs / 1000})`);
}
