import { and, asc, desc, eq, gte, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { endOfDay, startOfDay } from '@poi/shared/billing-time';
import type { AdminUserListFilter } from '@poi/shared/schemas/users';
import type { AccountType } from '@poi/shared/roles';
import { normalizeSearchText } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { escapeLike } from '../../db/sql';
import { users } from '../../db/schema/users';

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

function adminUserWhere(f: Omit<AdminUserListFilter, 'limit' | 'offset' | 'sort' | 'order'>): SQL | undefined {
  const conditions = [
    f.account_type ? eq(users.accountType, f.account_type) : undefined,
    f.role ? eq(users.role, f.role) : undefined,
    f.status ? eq(users.status, f.status) : undefined,
    f.created_from ? gte(users.createdAt, startOfDay(f.created_from)) : undefined,
    f.created_to ? lt(users.createdAt, endOfDay(f.created_to)) : undefined,
    paymentCondition(f.payment_method),
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
