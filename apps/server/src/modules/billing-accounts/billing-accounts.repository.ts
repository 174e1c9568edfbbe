import { and, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client';
import { billingAccounts } from '../../db/schema/invoices';
import { corporateAccounts } from '../../db/schema/corporate';
import { users } from '../../db/schema/users';
import { newCustomerNumber } from './customer-number';

export type BillingAccountRow = typeof billingAccounts.$inferSelect;

/**
 * The billing account a user's usage is billed to: their corporate account's when they are a
 * member of an active (or suspended) corporate account, otherwise their own individual one,
 * created on first need with a fresh お客様番号. Safe under concurrency (unique keys; the loser
 * of a race reads the winner's row).
 */
export async function ensureBillingAccountForUser(ex: Executor, userId: string): Promise<BillingAccountRow> {
  // One round trip for the user, their corporate account and both possible billing accounts (the
  // close calls this once per account: 100,000 times a month at 100,000 users).
  const own = alias(billingAccounts, 'own_account');
  const corporate = alias(billingAccounts, 'corporate_account');
  const [found] = await ex
    .select({ user: users, corp: corporateAccounts, own, corporate })
    .from(users)
    .leftJoin(corporateAccounts, eq(corporateAccounts.id, users.corporateAccountId))
    .leftJoin(own, eq(own.userId, users.id))
    .leftJoin(corporate, eq(corporate.corporateAccountId, corporateAccounts.id))
    .where(eq(users.id, userId))
    .limit(1);
  if (!found) throw new Error(`no user ${userId}`);
  const { user, corp } = found;
  if (corp && (corp.status === 'active' || corp.status === 'suspended')) return found.corporate ?? ensureCorporateBillingAccount(ex, corp);
  if (found.own) return found.own;
  return insertWithFreshNumber(ex, {
    kind: 'individual',
    userId,
    addressee: user.displayName?.trim() || user.email,
    honorific: '様',
    billingEmails: [user.email],
    paymentMethod: 'card',
  }, () => ex.select().from(billingAccounts).where(eq(billingAccounts.userId, userId)).limit(1));
}

/** The billing account of a corporate account (addressed to the company, 御中). */
export async function ensureCorporateBillingAccount(ex: Executor, corp: typeof corporateAccounts.$inferSelect): Promise<BillingAccountRow> {
  const [existing] = await ex.select().from(billingAccounts).where(eq(billingAccounts.corporateAccountId, corp.id)).limit(1);
  if (existing) return existing;
  return insertWithFreshNumber(ex, {
    kind: 'corporate',
    corporateAccountId: corp.id,
    addressee: corp.department ? `${corp.companyName} ${corp.department}` : corp.companyName,
    honorific: '御中',
    postalCode: corp.postalCode,
    address: corp.address,
    billingEmails: corp.billingEmails,
    paymentMethod: corp.paymentMethod,
  }, () => ex.select().from(billingAccounts).where(eq(billingAccounts.corporateAccountId, corp.id)).limit(1));
}

async function insertWithFreshNumber(
  ex: Executor,
  values: Omit<typeof billingAccounts.$inferInsert, 'customerNumber'>,
  reread: () => Promise<BillingAccountRow[]>,
): Promise<BillingAccountRow> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const rows = await ex
      .insert(billingAccounts)
      .values({ ...values, customerNumber: newCustomerNumber() })
      .onConflictDoNothing()
      .returning();
    if (rows[0]) return rows[0];
    // Either the owner got an account meanwhile (read it) or the number was taken (try another).
    const [winner] = await reread();
    if (winner) return winner;
  }
  throw new Error('could not allocate a customer number');
}

export async function findBillingAccountByUser(ex: Executor, userId: string): Promise<BillingAccountRow | undefined> {
  const [user] = await ex.select({ corporateAccountId: users.corporateAccountId }).from(users).where(eq(users.id, userId)).limit(1);
  if (user?.corporateAccountId) {
    const [row] = await ex.select().from(billingAccounts).where(eq(billingAccounts.corporateAccountId, user.corporateAccountId)).limit(1);
    if (row) return row;
  }
  const [row] = await ex.select().from(billingAccounts).where(eq(billingAccounts.userId, userId)).limit(1);
  return row;
}

export async function findBillingAccountById(ex: Executor, id: string): Promise<BillingAccountRow | undefined> {
  const [row] = await ex.select().from(billingAccounts).where(eq(billingAccounts.id, id)).limit(1);
  return row;
}

/** The billing account, locked for the rest of the transaction (saving a card). */
export async function lockBillingAccount(ex: Executor, id: string): Promise<BillingAccountRow | undefined> {
  const [row] = await ex.select().from(billingAccounts).where(eq(billingAccounts.id, id)).for('update').limit(1);
  return row;
}

/**
 * Remembers the account's Stripe Customer unless it already has one, and answers the one it has
 * now: when two requests created a customer at once, the first stored wins for both.
 */
export async function claimStripeCustomerId(ex: Executor, id: string, customerId: string): Promise<string> {
  await ex
    .update(billingAccounts)
    .set({ stripeCustomerId: customerId, updatedAt: sql`now()` })
    .where(and(eq(billingAccounts.id, id), isNull(billingAccounts.stripeCustomerId)));
  const [row] = await ex.select({ id: billingAccounts.stripeCustomerId }).from(billingAccounts).where(eq(billingAccounts.id, id));
  return row?.id ?? customerId;
}

export interface SavedCard {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export async function saveCard(ex: Executor, id: string, card: SavedCard): Promise<void> {
  await ex
    .update(billingAccounts)
    .set({ cardPaymentMethodId: card.paymentMethodId, cardBrand: card.brand, cardLast4: card.last4, cardExpMonth: card.expMonth, cardExpYear: card.expYear, updatedAt: sql`now()` })
    .where(eq(billingAccounts.id, id));
}

export async function clearCard(ex: Executor, id: string): Promise<void> {
  await ex
    .update(billingAccounts)
    .set({ cardPaymentMethodId: null, cardBrand: null, cardLast4: null, cardExpMonth: null, cardExpYear: null, updatedAt: sql`now()` })
    .where(eq(billingAccounts.id, id));
}

/** Adds to the account's credit (kept for its next invoice). */
export async function addCredit(ex: Executor, id: string, amountYen: number): Promise<void> {
  await ex
    .update(billingAccounts)
    .set({ creditYen: sql`${billingAccounts.creditYen} + ${amountYen}`, updatedAt: sql`now()` })
    .where(eq(billingAccounts.id, id));
}
