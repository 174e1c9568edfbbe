import { sql } from 'drizzle-orm';
import { bigint, check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { invoices } from './invoices';

/** Money received against an invoice (card, bank transfer, credit applied). Append-only. */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'restrict' }),
    billingAccountId: uuid('billing_account_id').notNull(),
    method: text('method', { enum: ['card', 'bank_transfer', 'credit'] }).notNull(),
    amountYen: bigint('amount_yen', { mode: 'number' }).notNull(),
    /** A shortfall the admin booked as the customer's transfer fee (counts as paid, not received). */
    feeYen: bigint('fee_yen', { mode: 'number' }).notNull().default(0),
    receivedOn: date('received_on').notNull(),
    payerName: text('payer_name'),
    note: text('note'),
    stripePaymentIntentId: text('stripe_payment_intent_id'),
    /** 領収書 number, R-YYYYMM-NNNNNN from the same counter table. */
    receiptNumber: text('receipt_number').notNull(),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('payments_invoice_idx').on(t.invoiceId),
    uniqueIndex('payments_receipt_key').on(t.receiptNumber),
    uniqueIndex('payments_intent_key').on(t.stripePaymentIntentId),
    check('payments_amounts', sql`${t.amountYen} >= 0 AND ${t.feeYen} >= 0`),
  ],
);

/** Payment-provider (Stripe) events already applied: a duplicate delivery is a no-op. */
export const providerEvents = pgTable('provider_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  /** The event's own creation time (Unix seconds). */
  providerCreated: bigint('provider_created', { mode: 'number' }).notNull(),
  objectId: text('object_id'),
  processedAt: timestamp('processed_at', { withTimezone: true }).notNull().defaultNow(),
});
