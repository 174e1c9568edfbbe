import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { apiKeys } from '../../db/schema/api-keys';
import { corporateAccounts } from '../../db/schema/corporate';
import { users } from '../../db/schema/users';
import type { UserRow } from '../users/users.repository';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function listApiKeys(ex: Executor, userId: string): Promise<ApiKeyRow[]> {
  return ex.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

export async function findApiKey(ex: Executor, id: string, options: { forUpdate?: boolean } = {}): Promise<ApiKeyRow | undefined> {
  const query = ex.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
  return (options.forUpdate ? await query.for('update') : await query)[0];
}

/** The key with this hash, its owner and the status of the owner's corporate account, in one round trip. */
export async function findApiKeyByHash(
  ex: Executor,
  keyHash: string,
): Promise<{ key: ApiKeyRow; user: UserRow; corporateStatus: CorporateStatus | null } | undefined> {
  const rows = await ex
    .select({ key: apiKeys, user: users, corporateStatus: corporateAccounts.status })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(corporateAccounts, eq(corporateAccounts.id, users.corporateAccountId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  return rows[0];
}
type CorporateStatus = (typeof corporateAccounts.$inferSelect)['status'];

/** Keys that count against the account's maximum: not revoked, not expired, not being rotated out. */
export async function countLiveApiKeys(ex: Executor, userId: string): Promise<number> {
  const rows = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.userId, userId),
        isNull(apiKeys.revokedAt),
        isNull(apiKeys.replacedBy),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    );
  return rows[0]?.n ?? 0;
}

export async function insertApiKey(
  ex: Executor,
  values: Pick<typeof apiKeys.$inferInsert, 'userId' | 'name' | 'keyHash' | 'prefix' | 'allowedIps' | 'allowedReferrers' | 'expiresAt'>,
): Promise<ApiKeyRow> {
  return (await ex.insert(apiKeys).values(values).returning())[0]!;
}

export async function revokeApiKey(ex: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return (await ex.update(apiKeys).set({ revokedAt: sql`now()` }).where(eq(apiKeys.id, id)).returning())[0];
}

/** The rotated key points to its successor and works until `until` (or its own earlier expiry). */
export async function markRotated(ex: Executor, id: string, replacedBy: string, until: Date): Promise<ApiKeyRow | undefined> {
  const rows = await ex
    .update(apiKeys)
    .set({ replacedBy, expiresAt: sql`LEAST(COALESCE(${apiKeys.expiresAt}, ${until}), ${until})` })
    .where(eq(apiKeys.id, id))
    .returning();
  return rows[0];
}

/**
 * Stamps last use for the keys of one usage flush (one statement per flush, so at most once a
 * second per key); never moves a stamp backwards.
 */
export async function touchApiKeys(ex: Executor, ids: string[], at: Date): Promise<void> {
  if (!ids.length) return;
  await ex
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(inArray(apiKeys.id, ids), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, at))));
}

/** Takes a transaction-scoped advisory lock on one user's API keys (held until the commit). */
export async function lockUserApiKeys(ex: Executor, userId: string): Promise<void> {
  await ex.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`api_keys:${userId}`}))`);
}
