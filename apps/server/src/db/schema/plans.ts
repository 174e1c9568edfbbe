import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/*
 * Leaving a plan (migration 0020, docs/billing.md "Cancel and downgrade"). No foreign keys to users,
 * as on the other money tables.
 */

export const PLAN_CHANGE_STATUSES = ['scheduled', 'withdrawn', 'applied', 'obsolete'] as const;

/**
 * A scheduled change of a user's account type (today: individual → trial at the start of the next
 * Japan-time month). scheduled → withdrawn (the user undid it) | applied (the job changed the type)
 * | obsolete (the type had changed otherwise, e.g. to corporate, before it took effect).
 */
export const planChanges = pgTable('plan_changes', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull(),
  fromType: text('from_type').notNull(),
  toType: text('to_type').notNull(),
  effectiveAt: timestamp('effective_at', { withTimezone: true }).notNull(),
  status: text('status', { enum: PLAN_CHANGE_STATUSES }).notNull().default('scheduled'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
});

/** A corporate owner's request to end the contract: one per corporate account, processed by an administrator. */
export const corporateCancellationRequests = pgTable('corporate_cancellation_requests', {
  id: uuid('id').primaryKey().defaultRandom(),
  corporateAccountId: uuid('corporate_account_id').notNull(),
  requestedBy: uuid('requested_by').notNull(),
  reason: text('reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
