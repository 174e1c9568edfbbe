import { and, asc, desc, eq, gte, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { endOfDay, startOfDay } from '@poi/shared/billing-time';
import type { AdminUserListFilter, AuditLogFilter } from '@poi/shared/schemas/users';
import type { AccountType } from '@poi/shared/roles';
import { normalizeSearchText } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { escapeLike } from '../../db/sql';
import { users } from '../../db/schema/users';
import { sessions } from '../../db/schema/sessions';
import { apiKeys } from '../../db/schema/api-keys';
import { usageDaily } from '../../db/schema/usage';
import { auditLogs } from '../../db/schema/audit';
import { billingAccounts, invoices } from '../../db/schema/invoices';

export type UserRow = typeof users.$inferSelect;

export async function findUserById(ex: Executor, id: string): Promise<UserRow | undefined> {
  const rows = await ex.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0];
}

/** Creates the user on first sign-in (trial), or returns the existing one; safe under concurrent sign-ins. */
export async function upsertUserOnSignIn(
  ex: Executor,
  email: string,
  promoteToAdmin: boolean,
): Promise<UserRow> {
  const promoted = promoteToAdmin ? { role: 'admin' as const, accountType: 'platform_admin' as const } : {};
  const rows = await ex
    .insert(users)
    .values({ email, ...promoted, lastLoginAt: sql`now()` })
    .onConflictDoUpdate({
      target: users.email,
      set: { ...promoted, lastLoginAt: sql`now()` },
    })
    .returning();
  return rows[0]!;
}

export async function updateDisplayName(ex: Executor, id: string, displayName: string): Promise<UserRow | undefined> {
  const rows = await ex
    .update(users)
    .set({ displayName, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return rows[0];
}

/** A user row as the admin screens read it (payment_method is kept on the row by triggers). */
export type AdminUserRow = UserRow;

/**
 * E-mail or display name contains the keyword, both sides folded as the searches fold them
 * (NFKC, lower case: ＴＡＲＯ finds taro@…, ﾀﾛｳ finds タロウ), served by the trigram index on the
 * generated search_text column (users_search_trgm_idx); a keyword that is a user id finds that user.
 */
function userKeywordCondition(keyword: string | undefined): SQL | undefined {
  const normalized = keyword ? normalizeSearchText(keyword) : '';
  if (!normalized) return undefined;
  const pattern = `%${escapeLike(normalized)}%`;
  const byId = UUID.test(normalized) ? sql` OR ${users.id} = ${normalized}::uuid` : sql``;
  return sql`(${users.searchText} LIKE ${pattern}${byId})`;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SORT_COLUMNS = {
  created_at: users.createdAt,
  email: users.email,
  display_name: users.displayName,
  last_login_at: users.lastLoginAt,
} as const;

/** How a user pays (users.payment_method: their own account's method, else their company's; none: null). */
function paymentCondition(method: AdminUserListFilter['payment_method']): SQL | undefined {
  if (!method) return undefined;
  return method === 'none' ? isNull(users.paymentMethod) : eq(users.paymentMethod, method);
}

/**
 * The users to contact about a failed card payment: the holder of an individual billing account,
 * or an owner of a corporate one, with an open card invoice (issued or overdue) whose last charge
 * failed. The admin list's `card_failed` filter and the dashboard's count both use this set, so the
 * dashboard's figure is the number of rows its link lists. Found from the failing invoices (a
 * partial index of them, migration 0028), never by testing every user: at 100,000 users that
 * test was a scan of all of them (0.12 s).
 */
const failingCardInvoice = sql`i.payment_method = 'card' AND i.status IN ('issued', 'overdue') AND i.last_payment_error IS NOT NULL`;
const failedCardPaymentUserIds = sql`
  SELECT ba.user_id FROM invoices i JOIN billing_accounts ba ON ba.id = i.billing_account_id
  WHERE ${failingCardInvoice} AND ba.user_id IS NOT NULL
  UNION
  SELECT corp_owner.id FROM invoices i JOIN billing_accounts ba ON ba.id = i.billing_account_id
  JOIN users corp_owner ON corp_owner.corporate_account_id = ba.corporate_account_id AND corp_owner.corporate_role = 'owner'
  WHERE ${failingCardInvoice}`;
const failedCardPaymentCondition = sql`${users.id} IN (${failedCardPaymentUserIds})`;

export async function countUsersWithFailedCardPayment(ex: Executor): Promise<number> {
  const rows = await ex.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (${failedCardPaymentUserIds}) failing`);
  return Number(rows.rows[0]?.n ?? 0);
}

function adminUserWhere(f: Omit<AdminUserListFilter, 'limit' | 'offset' | 'sort' | 'order'>): SQL | undefined {
  const conditions = [
    f.account_type ? eq(users.accountType, f.account_type) : undefined,
    f.role ? eq(users.role, f.role) : undefined,
    f.status ? eq(users.status, f.status) : undefined,
    f.created_from ? gte(users.createdAt, startOfDay(f.created_from)) : undefined,
    f.created_to ? lt(users.createdAt, endOfDay(f.created_to)) : undefined,
    paymentCondition(f.payment_method),
    f.card_failed ? failedCardPaymentCondition : undefined,
    userKeywordCondition(f.q ?? f.keyword),
  ].filter((c) => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

/**
 * The admin user list: a page in the chosen order (the id last, in the same direction, so pages
 * never overlap) and the exact total.
 */
export async function listAdminUsers(ex: Executor, f: Omit<AdminUserListFilter, 'limit' | 'offset'> & { limit?: number; offset?: number }): Promise<{ rows: AdminUserRow[]; total: number }> {
  const where = adminUserWhere(f);
  const dir = f.order === 'asc' ? asc : desc;
  const page = ex.select().from(users).where(where).orderBy(dir(SORT_COLUMNS[f.sort]), dir(users.id));
  const countQuery = ex.select({ total: sql<number>`count(*)::int` }).from(users).where(where);
  const [rows, count] = await Promise.all([
    f.limit === undefined ? page : page.limit(f.limit).offset(f.offset ?? 0),
    f.limit === undefined ? Promise.resolve([{ total: -1 }]) : countQuery,
  ]);
  return { rows, total: f.limit === undefined ? rows.length : (count[0]?.total ?? 0) };
}

export async function findAdminUser(ex: Executor, id: string): Promise<AdminUserRow | undefined> {
  return findUserById(ex, id);
}

/** Active administrators other than the given user (the caller holds the admins' row locks). */
export async function countOtherActiveAdmins(ex: Executor, exceptId: string): Promise<number> {
  const rows = await ex.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM ${users} WHERE ${users.role} = 'admin' AND ${users.status} = 'active' AND ${users.id} <> ${exceptId}`,
  );
  return Number(rows.rows[0]?.n ?? 0);
}

export async function updateStatusWithReason(ex: Executor, id: string, status: 'active' | 'suspended', reason: string): Promise<UserRow | undefined> {
  const rows = await ex.update(users).set({ status, statusReason: reason, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  return rows[0];
}

export async function updateTypeAndRole(ex: Executor, id: string, accountType: AccountType, role: 'user' | 'admin'): Promise<UserRow | undefined> {
  const rows = await ex.update(users).set({ accountType, role, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  return rows[0];
}

/**
 * Locks the user and every administrator, always in id order (two admins suspending or demoting
 * each other at once are then serialised, never deadlocked).
 */
export async function lockAdminsAndUser(ex: Executor, id: string): Promise<void> {
  await ex.execute(sql`SELECT id FROM users WHERE role = 'admin' OR id = ${id} ORDER BY id FOR UPDATE`);
}

/** A user's searches, free searches and amount (sen) of the days in [first, before). */
export async function usageOfDays(ex: Executor, userId: string, first: string, before: string) {
  return ex
    .select({
      searches: sql<string>`coalesce(sum(${usageDaily.searches}), 0)`,
      free: sql<string>`coalesce(sum(${usageDaily.freeSearches}), 0)`,
      amountSen: sql<string>`coalesce(sum(${usageDaily.amountSen}), 0)`,
    })
    .from(usageDaily)
    .where(and(eq(usageDaily.userId, userId), gte(usageDaily.day, first), lt(usageDaily.day, before)));
}

/** A user's API keys, the newest first (revoked ones too). */
export async function apiKeysOfUser(ex: Executor, userId: string) {
  return ex.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt));
}

/** The latest invoices billed to a user: their own, and their corporate account's. */
export async function invoicesOfUser(ex: Executor, userId: string, corporateAccountId: string | null, limit: number) {
  return ex
    .select({
      id: invoices.id,
      number: invoices.number,
      yearMonth: invoices.yearMonth,
      status: invoices.status,
      totalYen: invoices.totalYen,
      creditedYen: invoices.creditedYen,
      dueDate: invoices.dueDate,
    })
    .from(invoices)
    .innerJoin(billingAccounts, eq(billingAccounts.id, invoices.billingAccountId))
    .where(corporateAccountId ? or(eq(billingAccounts.userId, userId), eq(billingAccounts.corporateAccountId, corporateAccountId)) : eq(billingAccounts.userId, userId))
    .orderBy(desc(invoices.yearMonth), desc(invoices.id))
    .limit(limit);
}

/** The latest audit rows about one target, the newest first. */
export async function auditOfTarget(ex: Executor, targetType: string, targetId: string, limit: number) {
  return ex
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.targetType, targetType), eq(auditLogs.targetId, targetId)))
    .orderBy(desc(auditLogs.occurredAt), desc(auditLogs.id))
    .limit(limit);
}

/** The audit log's filter: an actor (id or e-mail), target, action and Japan-time days. */
function auditLogWhere(q: Omit<AuditLogFilter, 'limit' | 'offset'>): SQL | undefined {
  const actor = q.actor?.trim();
  const conditions = [
    actor ? (/^[0-9a-f-]{36}$/i.test(actor) ? eq(auditLogs.actorId, actor.toLowerCase()) : eq(auditLogs.actorEmail, actor.toLowerCase())) : undefined,
    q.target_type ? eq(auditLogs.targetType, q.target_type) : undefined,
    q.target_id ? eq(auditLogs.targetId, q.target_id) : undefined,
    q.action ? eq(auditLogs.action, q.action) : undefined,
    q.from ? gte(auditLogs.occurredAt, startOfDay(q.from)) : undefined,
    q.to ? lt(auditLogs.occurredAt, endOfDay(q.to)) : undefined,
  ].filter((c) => c !== undefined);
  return conditions.length ? and(...conditions) : undefined;
}

/** A page of the audit log, the newest first. */
export async function listAuditLogs(ex: Executor, q: AuditLogFilter) {
  return ex.select().from(auditLogs).where(auditLogWhere(q)).orderBy(desc(auditLogs.occurredAt), desc(auditLogs.id)).limit(q.limit).offset(q.offset);
}

export async function countAuditLogs(ex: Executor, q: Omit<AuditLogFilter, 'limit' | 'offset'>): Promise<number> {
  const [count] = await ex.select({ total: sql<number>`count(*)::int` }).from(auditLogs).where(auditLogWhere(q));
  return count?.total ?? 0;
}

/** Ends every live session of the user (suspension, sign-out everywhere). */
export async function revokeUserSessions(ex: Executor, userId: string): Promise<void> {
  await ex.update(sessions).set({ revokedAt: sql`now()` }).where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
}
