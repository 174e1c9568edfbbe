import { bigint, boolean, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * One billable search (an HTTP 200 of the public API), priced when it happened. Partitioned by
 * Japan-time month of occurred_at (migration 0023: usage_events_YYYY_MM and usage_events_default;
 * drizzle only queries the parent), raw rows kept USAGE_RAW_RETENTION_MONTHS (docs/billing.md
 * "Usage data"). (request_id, occurred_at) is unique and a retried flush stores the same pair, so
 * it never records a search twice. No foreign keys: money records stay even when a key or dataset
 * is deleted.
 */
export const usageEvents = pgTable(
  'usage_events',
  {
    requestId: uuid('request_id').notNull(),
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
  (t) => [primaryKey({ name: 'usage_events_pkey', columns: [t.requestId, t.occurredAt] }), index('usage_events_user_idx').on(t.userId, t.occurredAt)],
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
    // INCLUDE (searches, free_searches, amount_sen) in the database (migration 0027): a consumer's
    // month from the index alone. Drizzle declares no INCLUDE; the migrations are the schema.
    primaryKey({ columns: [t.userId, t.day, t.apiKeyId] }),
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
    // INCLUDE (dataset_id, searches, amount_sen) in the database (migration 0027): /usage by dataset from the index alone.
    index('usage_dataset_daily_user_idx').on(t.userId, t.day),
  ],
);

/** The dataset id of usage_charge_monthly's base-fee rows. */
export const BASE_FEE_LINE = '00000000-0000-0000-0000-000000000000';

/**
 * Per Japan-time month ('YYYY-MM') and user, the billable quantities grouped as invoice lines are:
 * per dataset and unit price (datasets above 0 sen), and the base fee per unit price (non-free
 * searches with a base fee above 0) under BASE_FEE_LINE. What the close, the billing screen and
 * budgets read. Kept in the flush's statement.
 */
export const usageChargeMonthly = pgTable(
  'usage_charge_monthly',
  {
    yearMonth: text('year_month').notNull(),
    userId: uuid('user_id').notNull(),
    datasetId: uuid('dataset_id').notNull(),
    unitPriceSen: integer('unit_price_sen').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
  },
  // The close reads a month, budgets a few users' month: ranges of the key, so no other index.
  (t) => [primaryKey({ name: 'usage_charge_monthly_pk', columns: [t.yearMonth, t.userId, t.datasetId, t.unitPriceSen] })],
);

/**
 * Per Japan-time month and user: searches, and the account type on the last one (the monthly fee's;
 * a user with any search in the month is billed for it). Kept in the flush's statement.
 */
export const usageUserMonthly = pgTable(
  'usage_user_monthly',
  {
    yearMonth: text('year_month').notNull(),
    userId: uuid('user_id').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
    lastOccurredAt: timestamp('last_occurred_at', { withTimezone: true }).notNull(),
    lastAccountType: text('last_account_type').notNull(),
  },
  (t) => [primaryKey({ name: 'usage_user_monthly_pk', columns: [t.yearMonth, t.userId] })],
);

/**
 * Per Japan day, revenue recipient and dataset: usage_dataset_daily summed over its consumers (a
 * few thousand rows a month). What the admin revenue screens read. Kept in the flush's statement.
 */
export const usagePlatformDatasetDaily = pgTable(
  'usage_platform_dataset_daily',
  {
    day: date('day').notNull(),
    recipientId: uuid('recipient_id').notNull(),
    datasetId: uuid('dataset_id').notNull(),
    searches: bigint('searches', { mode: 'number' }).notNull(),
    amountSen: bigint('amount_sen', { mode: 'number' }).notNull(),
    revenueUnits: bigint('revenue_units', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'usage_platform_dataset_daily_pk', columns: [t.day, t.recipientId, t.datasetId] }),
    index('usage_platform_dataset_daily_recipient_idx').on(t.recipientId, t.day),
  ],
);

/** Per Japan day, the platform's usage: usage_daily summed over users and keys (the admin dashboard). Kept in the flush's statement. */
export const usagePlatformDaily = pgTable('usage_platform_daily', {
  day: date('day').primaryKey(),
  searches: bigint('searches', { mode: 'number' }).notNull(),
  freeSearches: bigint('free_searches', { mode: 'number' }).notNull(),
  amountSen: bigint('amount_sen', { mode: 'number' }).notNull(),
});
