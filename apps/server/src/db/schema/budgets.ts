import { sql } from 'drizzle-orm';
import { bigint, boolean, check, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** A monthly budget per billing account: alert mails at 50/80/100 %, optional hard stop. */
export const budgets = pgTable(
  'budgets',
  {
    billingAccountId: uuid('billing_account_id').primaryKey(),
    monthlyLimitYen: bigint('monthly_limit_yen', { mode: 'number' }).notNull(),
    hardStop: boolean('hard_stop').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('budgets_limit', sql`${t.monthlyLimitYen} > 0`)],
);

/** Each budget alert sent, once per account, month and threshold. */
export const budgetAlerts = pgTable(
  'budget_alerts',
  {
    billingAccountId: uuid('billing_account_id').notNull(),
    yearMonth: text('year_month').notNull(),
    thresholdPct: integer('threshold_pct').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.billingAccountId, t.yearMonth, t.thresholdPct] })],
);
