import { and, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { CorporateListFilter } from '@poi/shared/schemas/corporate';
import { normalizeSearchText } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { auditLogs } from '../../db/schema/audit';
import { billingAccounts, invoices } from '../../db/schema/invoices';
import { corporateAccounts } from '../../db/schema/corporate';
import { users } from '../../db/schema/users';
import { escapeLike } from '../../db/sql';
import type { UserRow } from '../users/users.repository';
import type { BillingAccountRow } from '../billing-accounts/billing-accounts.repository';

export type CorporateAccountRow = typeof corporateAccounts.$inferSelect;
export type CorporateAccountValues = Partial<typeof corporateAccounts.$inferInsert>;

const memberCount = sql<number>`(SELECT count(*)::int FROM ${users} WHERE ${users.corporateAccountId} = ${corporateAccounts.id})`;

/** The admin list's filter: status, and a word of the company name (either script) or a customer number prefix. */
function listWhere(f: Pick<CorporateListFilter, 'status' | 'q'>): SQL | undefined {
  const q = f.q ? normalizeSearchText(f.q) : '';
  const pattern = `%${escapeLike(q)}%`;
  const conditions = [
    f.status ? eq(corporateAccounts.status, f.status) : undefined,
    q
      ? or(
          sql`lower(normalize(${corporateAccounts.companyName}, NFKC)) LIKE ${pattern}`,
          sql`lower(normalize(${corporateAccounts.companyNameKana}, NFKC)) LIKE ${pattern}`,
          ilike(billingAccounts.customerNumber, `${escapeLike(q)}%`),
        )
      : undefined,
  ].filter((c) => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

export interface CorporateListRow {
  corp: CorporateAccountRow;
  customerNumber: string | null;
  members: number;
}

/** Accounts matching the filter, the newest first, with their customer number and member count; a page when limit is given. */
export async function listCorporateAccounts(ex: Executor, f: Pick<CorporateListFilter, 'status' | 'q'>, page?: { limit: number; offset: number }): Promise<CorporateListRow[]> {
  const query = ex
    .select({ corp: corporateAccounts, customerNumber: billingAccounts.customerNumber, members: memberCount })
    .from(corporateAccounts)
    .leftJoin(billingAccounts, eq(billingAccounts.corporateAccountId, corporateAccounts.id))
    .where(listWhere(f))
    .orderBy(desc(corporateAccounts.createdAt), desc(corporateAccounts.id));
  return page ? query.limit(page.limit).offset(page.offset) : query;
}

export async function countCorporateAccounts(ex: Executor, f: Pick<CorporateListFilter, 'status' | 'q'>): Promise<number> {
  const [count] = await ex
    .select({ total: sql<number>`count(*)::int` })
    .from(corporateAccounts)
    .leftJoin(billingAccounts, eq(billingAccounts.corporateAccountId, corporateAccounts.id))
    .where(listWhere(f));
  return count?.total ?? 0;
}

/** An account with its billing account's id and customer number (null before activation). */
export async function findCorporateWithBilling(ex: Executor, id: string) {
  const [row] = await ex
    .select({ corp: corporateAccounts, customerNumber: billingAccounts.customerNumber, billingId: billingAccounts.id })
    .from(corporateAccounts)
    .leftJoin(billingAccounts, eq(billingAccounts.corporateAccountId, corporateAccounts.id))
    .where(eq(corporateAccounts.id, id))
    .limit(1);
  return row;
}

/** The latest invoices of a billing account, the newest month first. */
export async function recentInvoicesOf(ex: Executor, billingAccountId: string, limit: number) {
  return ex.select().from(invoices).where(eq(invoices.billingAccountId, billingAccountId)).orderBy(desc(invoices.yearMonth), desc(invoices.id)).limit(limit);
}

/** The latest audit rows about one account, the newest first. */
export async function corporateAuditOf(ex: Executor, id: string, limit: number) {
  return ex
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.targetType, 'corporate_account'), eq(auditLogs.targetId, id)))
    .orderBy(desc(auditLogs.occurredAt), desc(auditLogs.id))
    .limit(limit);
}

/** An account's members, the earliest first. */
export async function corporateMembersOf(ex: Executor, id: string) {
  return ex
    .select({ id: users.id, email: users.email, displayName: users.displayName, corporateRole: users.corporateRole, status: users.status })
    .from(users)
    .where(eq(users.corporateAccountId, id))
    .orderBy(users.createdAt, users.id);
}

/** An account's members' ids. */
export async function corporateMemberIds(ex: Executor, id: string): Promise<string[]> {
  const rows = await ex.select({ id: users.id }).from(users).where(eq(users.corporateAccountId, id));
  return rows.map((r) => r.id);
}

/** An account's members, locked for the rest of the transaction (in id order, so two removals cannot deadlock). */
export async function lockCorporateMembers(ex: Executor, id: string): Promise<UserRow[]> {
  return ex.select().from(users).where(eq(users.corporateAccountId, id)).orderBy(users.id).for('update');
}

/** The account, locked for the rest of the transaction. */
export async function lockCorporateAccount(ex: Executor, id: string): Promise<CorporateAccountRow | undefined> {
  const [corp] = await ex.select().from(corporateAccounts).where(eq(corporateAccounts.id, id)).for('update').limit(1);
  return corp;
}

/** The user, locked for the rest of the transaction. */
export async function lockUser(ex: Executor, id: string): Promise<UserRow | undefined> {
  const [user] = await ex.select().from(users).where(eq(users.id, id)).for('update').limit(1);
  return user;
}

/** The latest application a user made (any status). */
export async function latestApplicationOf(ex: Executor, userId: string): Promise<CorporateAccountRow | undefined> {
  const [row] = await ex.select().from(corporateAccounts).where(eq(corporateAccounts.appliedBy, userId)).orderBy(desc(corporateAccounts.createdAt), desc(corporateAccounts.id)).limit(1);
  return row;
}

/** Whether the user has an application under review. */
export async function hasPendingApplication(ex: Executor, userId: string): Promise<boolean> {
  const [pending] = await ex
    .select({ id: corporateAccounts.id })
    .from(corporateAccounts)
    .where(sql`${corporateAccounts.appliedBy} = ${userId} AND ${corporateAccounts.status} = 'pending'`)
    .limit(1);
  return Boolean(pending);
}

/** A user's account type, corporate account and e-mail as stored now. */
export async function userStanding(ex: Executor, userId: string) {
  const [row] = await ex
    .select({ accountType: users.accountType, corporateAccountId: users.corporateAccountId, email: users.email })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return row;
}

export async function insertCorporateAccount(ex: Executor, values: typeof corporateAccounts.$inferInsert): Promise<CorporateAccountRow> {
  const [row] = await ex.insert(corporateAccounts).values(values).returning();
  return row!;
}

export async function updateCorporateAccount(ex: Executor, id: string, set: CorporateAccountValues): Promise<CorporateAccountRow> {
  const [after] = await ex
    .update(corporateAccounts)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(corporateAccounts.id, id))
    .returning();
  return after!;
}

/** Suspends an account (its members' API access stops). */
export async function suspendCorporateAccount(ex: Executor, id: string, reason: string): Promise<void> {
  await ex.update(corporateAccounts).set({ status: 'suspended', statusReason: reason, updatedAt: sql`now()` }).where(eq(corporateAccounts.id, id));
}

/** Rejects an application, recording who decided and when. */
export async function rejectCorporateAccount(ex: Executor, id: string, decidedBy: string | null, reason: string): Promise<void> {
  await ex
    .update(corporateAccounts)
    .set({ status: 'rejected', statusReason: reason, decidedBy, decidedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(corporateAccounts.id, id));
}

/** Activates an account, decided now (by `decidedBy` when an administrator did). */
export async function activateCorporateRow(
  ex: Executor,
  id: string,
  values: { decidedBy?: string | null; statusReason: string | null; creditLimitYen?: number | null; paymentTerms?: string },
): Promise<CorporateAccountRow> {
  const [updated] = await ex
    .update(corporateAccounts)
    .set({ status: 'active', decidedAt: sql`now()`, ...values, updatedAt: sql`now()` })
    .where(eq(corporateAccounts.id, id))
    .returning();
  return updated!;
}

/** A user's membership: joining (corporate account, role, account type corporate) or leaving (nulls, trial). */
export async function setUserMembership(
  ex: Executor,
  userId: string,
  membership: { corporateAccountId: string | null; corporateRole: UserRow['corporateRole']; accountType: UserRow['accountType'] },
): Promise<void> {
  await ex
    .update(users)
    .set({ ...membership, updatedAt: sql`now()` })
    .where(eq(users.id, userId));
}

/** Future invoices are addressed from the billing account: it follows the account's company data. */
export async function syncCorporateBillingAccount(ex: Executor, corp: CorporateAccountRow): Promise<void> {
  await ex
    .update(billingAccounts)
    .set({
      addressee: corp.department ? `${corp.companyName} ${corp.department}` : corp.companyName,
      postalCode: corp.postalCode,
      address: corp.address,
      billingEmails: corp.billingEmails,
      paymentMethod: corp.paymentMethod,
      updatedAt: sql`now()`,
    })
    .where(eq(billingAccounts.corporateAccountId, corp.id));
}

export async function setBillingPaymentMethod(ex: Executor, billingAccountId: string, paymentMethod: BillingAccountRow['paymentMethod']): Promise<BillingAccountRow> {
  const [changed] = await ex.update(billingAccounts).set({ paymentMethod, updatedAt: sql`now()` }).where(eq(billingAccounts.id, billingAccountId)).returning();
  return changed!;
}
