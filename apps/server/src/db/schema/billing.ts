import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, date, index, integer, numeric, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

/** Platform pricing per account type, versioned by effective_from (ARCHITECTURE.md "Money"). */
export const pricingVersions = pgTable(
  'pricing_versions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountType: text('account_type', { enum: ['trial', 'individual', 'corporate', 'data_provider', 'platform_admin'] }).notNull(),
    effectiveFrom: timestamp('effective_from', { withTimezone: true }).notNull(),
    baseFee: numeric('base_fee', { precision: 10, scale: 2 }).notNull(),
    freeSearchesPerMonth: integer('free_searches_per_month').notNull(),
    monthlyFee: numeric('monthly_fee', { precision: 10, scale: 2 }).notNull().default('0'),
    /** Provider revenue share in basis points (7000 = 70 %): integers keep revenue exact. */
    providerShareBp: integer('provider_share_bp').notNull(),
    rateLimitPerMinute: integer('rate_limit_per_minute').notNull(),
    maxApiKeys: integer('max_api_keys').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('pricing_versions_type_from_key').on(t.accountType, t.effectiveFrom),
    check('pricing_versions_base_fee', sql`${t.baseFee} >= 0 AND ${t.baseFee} <= 1000`),
    check('pricing_versions_free', sql`${t.freeSearchesPerMonth} >= 0`),
    check('pricing_versions_share', sql`${t.providerShareBp} BETWEEN 0 AND 10000`),
    check('pricing_versions_rate', sql`${t.rateLimitPerMinute} > 0`),
    check('pricing_versions_keys', sql`${t.maxApiKeys} > 0`),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the whole key, hex: the key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    allowedIps: text('allowed_ips').array().notNull().default(sql`'{}'::text[]`),
    allowedReferrers: text('allowed_referrers').array().notNull().default(sql`'{}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Set when the key was rotated: it then expires 24 hours later. */
    replacedBy: uuid('replaced_by'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('api_keys_user_idx').on(t.userId, t.createdAt)],
);

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
