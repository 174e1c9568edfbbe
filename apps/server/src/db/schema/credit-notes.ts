import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { invoices } from './invoices';

/**
 * A credit note (適格返還請求書) against an issued invoice: numbered CN-YYYYMM-NNNNNN from
 * number_counters (series 'credit_note:YYYYMM'), immutable once written (trigger
 * credit_notes_immutable; only pdf_sha256 is stored once). amount = subtotal + tax, tax at 10 %
 * (docs/billing.md "Void, credit notes and write-off"); applied_to_invoice + credited_to_account =
 * amount: the part that reduced what was owed, and the excess kept as the account's credit.
 */
export const creditNotes = pgTable(
  'credit_notes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    number: text('number').notNull(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'restrict' }),
    billingAccountId: uuid('billing_account_id').notNull(),
    issueDate: date('issue_date').notNull(),
    /** Tax included. */
    amountYen: bigint('amount_yen', { mode: 'number' }).notNull(),
    subtotalYen: bigint('subtotal_yen', { mode: 'number' }).notNull(),
    taxYen: bigint('tax_yen', { mode: 'number' }).notNull(),
    taxRateBp: integer('tax_rate_bp').notNull().default(1000),
    appliedToInvoiceYen: bigint('applied_to_invoice_yen', { mode: 'number' }).notNull(),
    creditedToAccountYen: bigint('credited_to_account_yen', { mode: 'number' }).notNull(),
    description: text('description').notNull(),
    reason: text('reason').notNull(),
    issuerSnapshot: jsonb('issuer_snapshot').notNull(),
    recipientSnapshot: jsonb('recipient_snapshot').notNull(),
    pdfSha256: text('pdf_sha256'),
    createdBy: uuid('created_by'),
    /** The client's id for one submission (a resubmit answers the same note, see creditNoteBodySchema). */
    requestId: uuid('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('credit_notes_number_key').on(t.number),
    uniqueIndex('credit_notes_request_key').on(t.requestId),
    index('credit_notes_invoice_idx').on(t.invoiceId, t.createdAt),
    check(
      'credit_notes_amounts',
      sql`${t.amountYen} >= 1 AND ${t.subtotalYen} >= 0 AND ${t.taxYen} >= 0 AND ${t.subtotalYen} + ${t.taxYen} = ${t.amountYen} AND ${t.appliedToInvoiceYen} >= 0 AND ${t.creditedToAccountYen} >= 0 AND ${t.appliedToInvoiceYen} + ${t.creditedToAccountYen} = ${t.amountYen}`,
    ),
  ],
);
