import { bigint, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/*
 * Corporate accounts (who is billed by bank transfer on terms, or by card). Like every money table,
 * no cascading foreign keys: deleting a user never deletes billing records (kept at least 7 years).
 */

export const PAYMENT_METHODS = ['card', 'bank_transfer'] as const;

/**
 * A corporate account (an application until approved). Its members are users whose
 * corporate_account_id points here (users.corporate_role: owner | billing | member).
 */
export const corporateAccounts = pgTable(
  'corporate_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** pending (application waiting for an admin) → active ⇄ suspended; rejected ends an application. */
    status: text('status', { enum: ['pending', 'active', 'suspended', 'rejected'] }).notNull(),
    companyName: text('company_name').notNull(),
    companyNameKana: text('company_name_kana').notNull(),
    department: text('department'),
    postalCode: text('postal_code').notNull(),
    address: text('address').notNull(),
    phone: text('phone').notNull(),
    billingContactName: text('billing_contact_name').notNull(),
    billingEmails: text('billing_emails').array().notNull(),
    /** 法人番号 (13 digits), optional. */
    corporateNumber: text('corporate_number'),
    /** The company's own 適格請求書発行事業者 registration number (T + 13 digits), optional. */
    registrationNumber: text('registration_number'),
    paymentMethod: text('payment_method', { enum: PAYMENT_METHODS }).notNull(),
    /** Set by the admin on approval; null = no limit agreed. */
    creditLimitYen: bigint('credit_limit_yen', { mode: 'number' }),
    /** Days after the end of the invoiced month's next month… kept as a label: 'month_end_next_month'. */
    paymentTerms: text('payment_terms').notNull().default('month_end_next_month'),
    appliedBy: uuid('applied_by'),
    decidedBy: uuid('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    statusReason: text('status_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('corporate_accounts_status_idx').on(t.status, t.createdAt)],
);
