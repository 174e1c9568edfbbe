import { sql } from 'drizzle-orm';
import { bigserial, check, integer, numeric, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { users } from './users';

/** Platform pricing per account type, versioned by effective_from (docs/billing.md "Pricing"). */
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
