import { bigint, boolean, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * One billable search (an HTTP 200 of the public API), priced when it happened. request_id is
 * unique, so a retried flush never records a search twice. No foreign keys: money records stay
 * even when a key or dataset is deleted.
 */
export const usageEvents = pgTable(
  'usage_events',
  {
    requestId: uuid('request_id').primaryKey(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    userId: uuid('user_id').notNull(),
    apiKeyId: uuid('api_key_id').notNull(),
    accountType: text('account_type').notNull(),
    pricingVersionId: bigint('pricing_version_id', { mode: 'number' }).notNull(),
    datasetIds: uuid('dataset_ids').array().notNull(),
    /** Each dataset's price in sen (hundredths of a yen) at the time of the search. */
    datasetPricesSen: integer('dataset_prices_sen').array().notNull(),
    /** Each dataset's share of its price for its revenue recipient, in basis points. */
    datasetSharesBp: integer('dataset_shares_bp').array().notNull(),
    /** Each dataset's revenue recipient at the time of the search; PLATFORM_RECIPIENT for the platform. */
    datasetRecipientIds: uuid('dataset_recipient_ids').array().notNull(),
    baseFeeSen: integer('base_fee_sen').notNull(),
    amountSen: integer('amount_sen').notNull(),
    /** Counted against the month's free searches (base fee waived). */
    free: boolean('free').notNull(),
  },
  (t) => [index('usage_events_user_idx').on(t.userId, t.occurredAt)],
);

/** Per user, Japanese day and key: what /usage and /dashboard read. Kept in the flush's statement. */
export const usageDaily = pgTable(
  'usage_daily',
  {
    userId: uuid('user_id').notNull(),
    day: date('day').notNull(),
    apiKeyId: uuid('api_key_id').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
    freeSearches: bigint('free_searches', { mode: 'number' }).notNull(),
    amountSen: bigint('amount_sen', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.day, t.apiKeyId] }),
    // The admin dashboard's searches today and this month: an index-only range of days.
    index('usage_daily_day_idx').on(t.day, t.searches),
  ],
);

/** The recipient id that stands for the platform (platform datasets, datasets without a provider). */
export const PLATFORM_RECIPIENT = '00000000-0000-0000-0000-000000000000';

/**
 * Per dataset, Japanese day, consumer and revenue recipient: usage by dataset and provider revenue.
 * The recipient is the one at the time of the search, so reassigning a dataset never moves
 * revenue already earned. revenue_units = Σ price_sen × share_bp, so revenue in yen =
 * revenue_units / 1,000,000, exact.
 */
export const usageDatasetDaily = pgTable(
  'usage_dataset_daily',
  {
    datasetId: uuid('dataset_id').notNull(),
    day: date('day').notNull(),
    userId: uuid('user_id').notNull(),
    recipientId: uuid('recipient_id').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
    amountSen: bigint('amount_sen', { mode: 'number' }).notNull(),
    revenueUnits: bigint('revenue_units', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.day, t.userId, t.recipientId] }),
    index('usage_dataset_daily_user_idx').on(t.userId, t.day),
    index('usage_dataset_daily_recipient_idx').on(t.recipientId, t.day),
    // The admin revenue views aggregate a whole month: index-only over its days.
    index('usage_dataset_daily_day_idx').on(t.day, t.recipientId, t.datasetId, t.searches, t.amountSen, t.revenueUnits),
  ],
);
