import { and, asc, eq, sql } from 'drizzle-orm';
import type { AccountType } from '@poi/shared/roles';
import type { Executor } from '../../db/client';
import { pricingVersions } from '../../db/schema/pricing';
import { users } from '../../db/schema/users';

export type PricingVersionRow = typeof pricingVersions.$inferSelect;

export async function listPricingVersions(ex: Executor): Promise<PricingVersionRow[]> {
  return ex.select().from(pricingVersions).orderBy(asc(pricingVersions.accountType), asc(pricingVersions.effectiveFrom));
}

/** A version, locked for the rest of the transaction (a change to a future version). */
export async function lockPricingVersion(ex: Executor, id: number): Promise<PricingVersionRow | undefined> {
  const [row] = await ex.select().from(pricingVersions).where(eq(pricingVersions.id, id)).for('update').limit(1);
  return row;
}

export async function insertPricingVersion(ex: Executor, values: typeof pricingVersions.$inferInsert): Promise<PricingVersionRow> {
  const [created] = await ex.insert(pricingVersions).values(values).returning();
  return created!;
}

export async function updatePricingVersion(ex: Executor, id: number, set: Partial<typeof pricingVersions.$inferInsert>): Promise<PricingVersionRow | undefined> {
  const [updated] = await ex.update(pricingVersions).set(set).where(eq(pricingVersions.id, id)).returning();
  return updated;
}

export async function deletePricingVersion(ex: Executor, id: number): Promise<void> {
  await ex.delete(pricingVersions).where(eq(pricingVersions.id, id));
}

/** Active users of an account type (those a new price applies to). */
export async function activeUsersOfType(ex: Executor, accountType: AccountType): Promise<number> {
  const [count] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(users)
    .where(and(eq(users.accountType, accountType), eq(users.status, 'active')));
  return count?.n ?? 0;
}
