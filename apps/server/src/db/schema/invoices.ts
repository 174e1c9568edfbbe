import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, date, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PAYMENT_METHODS } from './corporate';

/*
 * Invoices: who is billed (billing accounts), invoices and their lines, and the invoice number
 * counter. The other money tables are in corporate.ts, payments.ts and budgets.ts; the audit log in
 * audit.ts.
 * Amounts are integer yen (`_yen`) or sen (`_sen`, hundredths of a yen), never floats. Money
 * records carry no cascading foreign keys to users or datasets: deleting a user or a dataset
 * never deletes billing records (kept at least 7 years).
 */

/**
 * Who an invoice is addressed to: one per individual user (user_id), one per corporate account
 * (corporate_account_id). Details here apply to future invoices only (invoices snapshot them).
 */
export const billingAccounts = pgTable(
  'billing_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: ['individual', 'corporate'] }).notNull(),
    userId: uuid('user_id'),
    corporateAccountId: uuid('corporate_account_id'),
    /** お客様番号: 7 digits, the last a check digit (see billing/customer-number.ts). */
    customerNumber: text('customer_number').notNull(),
    /** 宛名 and 敬称 (様 for people, 御中 for companies). */
    addressee: text('addressee').notNull(),
    honorific: text('honorific', { enum: ['様', '御中'] }).notNull(),
    postalCode: text('postal_code'),
    address: text('address'),
    billingEmails: text('billing_emails').array().notNull().default(sql`'{}'::text[]`),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }).notNull().default('card'),
    stripeCustomerId: text('stripe_customer_id'),
    /** The default card (Stripe payment method id and what the console shows of it). */
    cardPaymentMethodId: text('card_payment_method_id'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    cardExpMonth: integer('card_exp_month'),
    cardExpYear: integer('card_exp_year'),
    /** Over-payments kept as credit, applied to the next invoice. */
    creditYen: bigint('credit_yen', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('billing_accounts_customer_number_key').on(t.customerNumber),
    // The admin user list's payment-method filter: ids of the accounts paying one way, index-only.
    index('billing_accounts_method_user_idx').on(t.paymentMethod, t.userId),
    index('billing_accounts_method_corporate_idx').on(t.paymentMethod, t.corporateAccountId),
    uniqueIndex('billing_accounts_user_key').on(t.userId),
    uniqueIndex('billing_accounts_corporate_key').on(t.corporateAccountId),
    check('billing_accounts_owner', sql`(${t.kind} = 'individual' AND ${t.userId} IS NOT NULL AND ${t.corporateAccountId} IS NULL) OR (${t.kind} = 'corporate' AND ${t.corporateAccountId} IS NOT NULL AND ${t.userId} IS NULL)`),
    check('billing_accounts_credit', sql`${t.creditYen} >= 0`),
  ],
);

export const INVOICE_STATUSES = ['draft', 'issued', 'paid', 'partially_paid', 'overdue', 'void', 'uncollectible'] as const;

/**
 * An invoice (適格請求書). Monthly invoices are unique per billing account and month (the close
 * is idempotent); corrections are kind 'correction'. Once issued, the number, period, amounts
 * and snapshots never change (the service refuses; trigger invoices_issued_immutable guards).
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    billingAccountId: uuid('billing_account_id').notNull(),
    kind: text('kind', { enum: ['monthly', 'correction'] }).notNull().default('monthly'),
    /** 'YYYY-MM', the Japan-time month billed. */
    yearMonth: text('year_month').notNull(),
    /** POI-YYYYMM-NNNNNN, given at issue from invoice_number_counters. */
    number: text('number'),
    status: text('status', { enum: INVOICE_STATUSES }).notNull().default('draft'),
    periodStart: date('period_start').notNull(),
    periodEnd: date('period_end').notNull(),
    issueDate: date('issue_date'),
    dueDate: date('due_date'),
    subtotalYen: bigint('subtotal_yen', { mode: 'number' }).notNull(),
    /** 10 % consumption tax, ⌊subtotal × 10 / 100⌋, once per invoice. */
    taxYen: bigint('tax_yen', { mode: 'number' }).notNull(),
    totalYen: bigint('total_yen', { mode: 'number' }).notNull(),
    /** Credit of earlier over-payments applied to this invoice. */
    creditAppliedYen: bigint('credit_applied_yen', { mode: 'number' }).notNull().default(0),
    /** Received and booked so far (payments + fees booked); due = total − credit applied − paid − credited. */
    paidYen: bigint('paid_yen', { mode: 'number' }).notNull().default(0),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }).notNull(),
    /** Issuer (ISSUER_* config) and recipient (宛名, 敬称, address, お客様番号) as at issue. */
    issuerSnapshot: jsonb('issuer_snapshot').notNull(),
    recipientSnapshot: jsonb('recipient_snapshot').notNull(),
    pdfSha256: text('pdf_sha256'),
    /** Card collection: attempts made, when the next retry is due, the last decline, a pay-now link. */
    paymentAttempts: integer('payment_attempts').notNull().default(0),
    nextRetryAt: timestamp('next_retry_at', { withTimezone: true }),
    lastPaymentError: text('last_payment_error'),
    stripePaymentIntentId: text('stripe_payment_intent_id'),
    payNowUrl: text('pay_now_url'),
    /** The last payment-provider event applied (its `created`), so an older event never undoes a newer state. */
    providerStateAt: bigint('provider_state_at', { mode: 'number' }),
    voidReason: text('void_reason'),
    /** Σ of the invoice's credit notes (適格返還請求書), at most total_yen; what is owed counts it (remainingYen). */
    creditedYen: bigint('credited_yen', { mode: 'number' }).notNull().default(0),
    voidedAt: timestamp('voided_at', { withTimezone: true }),
    writtenOffAt: timestamp('written_off_at', { withTimezone: true }),
    writeOffReason: text('write_off_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    issuedAt: timestamp('issued_at', { withTimezone: true }),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('invoices_monthly_key').on(t.billingAccountId, t.yearMonth).where(sql`${t.kind} = 'monthly'`),
    uniqueIndex('invoices_number_key').on(t.number),
    index('invoices_account_idx').on(t.billingAccountId, t.issueDate),
    index('invoices_status_idx').on(t.status, t.dueDate),
    // Migration 0028 also has two partial indexes the schema cannot declare with their INCLUDE:
    // invoices_open_idx (open invoices with their amounts) and invoices_card_failed_idx.
    check('invoices_credited', sql`${t.creditedYen} >= 0 AND ${t.creditedYen} <= ${t.totalYen}`),
    check('invoices_amounts', sql`${t.subtotalYen} >= 0 AND ${t.taxYen} >= 0 AND ${t.totalYen} = ${t.subtotalYen} + ${t.taxYen} AND ${t.paidYen} >= 0 AND ${t.creditAppliedYen} >= 0`),
  ],
);

/** What was bought: one line per paid dataset, the base fee, the monthly fee. */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'restrict' }),
    position: integer('position').notNull(),
    kind: text('kind', { enum: ['dataset', 'base_fee', 'monthly_fee', 'carry_over'] }).notNull(),
    datasetId: uuid('dataset_id'),
    description: text('description').notNull(),
    quantity: bigint('quantity', { mode: 'number' }).notNull(),
    unitPriceSen: bigint('unit_price_sen', { mode: 'number' }).notNull(),
    /** ⌊quantity × unit price in sen / 100⌋ yen. */
    amountYen: bigint('amount_yen', { mode: 'number' }).notNull(),
    /** Tax rate in basis points (1000 = 10 %). */
    taxRateBp: integer('tax_rate_bp').notNull().default(1000),
  },
  (t) => [
    uniqueIndex('invoice_lines_position_key').on(t.invoiceId, t.position),
    // A month's billed amount per dataset (admin revenue): the lines of its invoices, index-only.
    index('invoice_lines_dataset_amount_idx').on(t.invoiceId, t.kind, t.datasetId, t.amountYen),
  ],
);

/** Gap-free numbering: one row per series and month ('invoice:202611', 'receipt:202611'), locked FOR UPDATE. */
export const numberCounters = pgTable('number_counters', {
  series: text('series').primaryKey(),
  lastNumber: integer('last_number').notNull(),
});

/**
 * Per month and dataset: the amount and number of dataset lines of monthly invoices neither draft
 * nor void (platform revenue's "billed"). Written only by the triggers of migration 0025 on
 * invoices and invoice_lines, never by the application.
 */
export const invoiceDatasetMonthly = pgTable(
  'invoice_dataset_monthly',
  {
    yearMonth: text('year_month').notNull(),
    datasetId: uuid('dataset_id').notNull(),
    billedYen: bigint('billed_yen', { mode: 'number' }).notNull(),
    lines: bigint('lines', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'invoice_dataset_monthly_pk', columns: [t.yearMonth, t.datasetId] })],
);

/**
 * Per month, in 16 shards by invoice id: the figures of the month's monthly invoices neither draft
 * nor void (count, billed, tax, total, collected, credited, outstanding) for the admin dashboard and
 * platform revenue. Written only by the trigger of migration 0026 on invoices.
 */
export const invoiceFiguresMonthly = pgTable(
  'invoice_figures_monthly',
  {
    yearMonth: text('year_month').notNull(),
    shard: smallint('shard').notNull(),
    invoices: bigint('invoices', { mode: 'number' }).notNull(),
    billedYen: bigint('billed_yen', { mode: 'number' }).notNull(),
    taxYen: bigint('tax_yen', { mode: 'number' }).notNull(),
    totalYen: bigint('total_yen', { mode: 'number' }).notNull(),
    collectedYen: bigint('collected_yen', { mode: 'number' }).notNull(),
    creditedYen: bigint('credited_yen', { mode: 'number' }).notNull(),
    outstandingYen: bigint('outstanding_yen', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'invoice_figures_monthly_pk', columns: [t.yearMonth, t.shard] })],
);
