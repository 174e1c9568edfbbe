import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { AccountType } from '@poi/shared/roles';
import { normalizeSearchText } from '@poi/shared/text';
import type { Executor } from '../../db/client';
import { users } from '../../db/schema/users';

export type UserRow = typeof users.$inferSelect;

export async function findUserById(ex: Executor, id: string): Promise<UserRow | undefined> {
  const rows = await ex.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0];
}

export async function findUserByEmail(ex: Executor, email: string): Promise<UserRow | undefined> {
  const rows = await ex.select().from(users).where(eq(users.email, email)).limit(1);
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

export async function updateAccountType(ex: Executor, id: string, accountType: AccountType): Promise<UserRow | undefined> {
  const rows = await ex
    .update(users)
    .set({ accountType, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return rows[0];
}

export async function updateStatus(ex: Executor, id: string, status: 'active' | 'suspended'): Promise<UserRow | undefined> {
  const rows = await ex
    .update(users)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return rows[0];
}

export interface UserListFilter {
  accountType?: AccountType;
  keyword?: string;
  limit: number;
  offset: number;
}

/**
 * E-mail or display name contains the keyword, both sides folded as the searches fold them
 * (NFKC, lower case: ＴＡＲＯ finds taro@…, ﾀﾛｳ finds タロウ). No index: the pickers ask for one
 * account type, and users are few next to POIs.
 */
function userKeywordCondition(keyword: string | undefined): SQL | undefined {
  const normalized = keyword ? normalizeSearchText(keyword) : '';
  if (!normalized) return undefined;
  const pattern = `%${escapeLike(normalized)}%`;
  return sql`(lower(normalize(${users.email}, NFKC)) LIKE ${pattern} OR lower(normalize(coalesce(${users.displayName}, ''), NFKC)) LIKE ${pattern})`;
}

export async function listUsers(ex: Executor, f: UserListFilter): Promise<{ rows: UserRow[]; total: number }> {
  const conditions = [
    f.accountType ? eq(users.accountType, f.accountType) : undefined,
    userKeywordCondition(f.keyword),
  ].filter((c) => c !== undefined);
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, count] = await Promise.all([
    ex.select().from(users).where(where).orderBy(asc(users.createdAt), asc(users.id)).limit(f.limit).offset(f.offset),
    ex.select({ total: sql<number>`count(*)::int` }).from(users).where(where),
  ]);
  return { rows, total: count[0]?.total ?? 0 };
}

export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);
