import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull().unique(),
    displayName: text('display_name'),
    role: text('role', { enum: ['user', 'admin'] }).notNull().default('user'),
    accountType: text('account_type', {
      enum: ['trial', 'individual', 'corporate', 'data_provider', 'platform_admin'],
    })
      .notNull()
      .default('trial'),
    status: text('status', { enum: ['active', 'suspended'] }).notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    /** Member of a corporate account (billed to it), with their role there. */
    corporateAccountId: uuid('corporate_account_id'),
    corporateRole: text('corporate_role', { enum: ['owner', 'billing', 'member'] }),
    /** Why the user was suspended or reactivated (admin), shown on the admin screens. */
    statusReason: text('status_reason'),
    /**
     * How the user pays: their own billing account's method, else their company's (null: none).
     * Kept by triggers on users and billing_accounts (migration 0012), for the admin list's filter.
     */
    paymentMethod: text('payment_method', { enum: ['card', 'bank_transfer'] }),
    /** E-mail and display name folded as the searches fold them (NFKC, lower case): the admin search. */
    searchText: text('search_text').generatedAlwaysAs(
      sql`lower(normalize(email, NFKC)) || ' ' || lower(normalize(coalesce(display_name, ''), NFKC))`,
    ),
  },
  (t) => [
    index('users_account_type_idx').on(t.accountType, t.createdAt),
    index('users_corporate_idx').on(t.corporateAccountId),
    // The admin list's orders, each with the id tie-breaker (read backwards for descending).
    // INCLUDE (account_type) in the database (migration 0028): sign-ups of a period by type from the index alone.
    index('users_created_idx').on(t.createdAt, t.id),
    index('users_display_name_idx').on(t.displayName, t.id),
    index('users_last_login_idx').on(t.lastLoginAt, t.id),
    index('users_email_order_idx').on(t.email, t.id),
    index('users_payment_method_idx').on(t.paymentMethod, t.createdAt, t.id),
    // The admin search: e-mail and display name, folded as the searches fold (NFKC, lower case).
    index('users_search_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
  ],
);
