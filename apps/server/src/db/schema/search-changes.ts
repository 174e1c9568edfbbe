import { sql } from 'drizzle-orm';
import { bigserial, customType, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** PostgreSQL's xid8 (a 64-bit transaction id), read as its decimal text. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * The change log of the in-memory search index: triggers on pois and datasets append
 * a row in the writing transaction (migration 0016). `txid` is that transaction, so a reader
 * takes exactly the rows committed between two of its snapshots, whatever order transactions
 * commit in. Kept an hour (search-index.ts prunes it).
 */
export const searchChanges = pgTable(
  'search_changes',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    txid: xid8('txid').notNull().default(sql`pg_current_xact_id()`),
    /** 'poi': one POI of the dataset changed; 'pois': too many to list, read the dataset again; 'dataset': its row changed. */
    kind: text('kind').notNull(),
    datasetId: uuid('dataset_id').notNull(),
    poiId: uuid('poi_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('search_changes_txid_idx').on(t.txid), index('search_changes_created_idx').on(t.createdAt)],
);
