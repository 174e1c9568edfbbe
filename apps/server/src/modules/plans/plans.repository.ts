import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { corporateAccounts } from '../../db/schema/corporate';
import { corporateCancellationRequests, planChanges } from '../../db/schema/plans';
import { users } from '../../db/schema/users';

export type PlanChangeRow = typeof planChanges.$inferSelect;
export type CancellationRequestRow = typeof corporateCancellationRequests.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export async function lockPlanUser(ex: Executor, id: string): Promise<UserRow | undefined> {
  const [user] = await ex.select().from(users).where(eq(users.id, id)).for('update').limit(1);
  return user;
}

export async function findPlanUser(ex: Executor, id: string): Promise<UserRow | undefined> {
  const [user] = await ex.select().from(users).where(eq(users.id, id)).limit(1);
  return user;
}

export async function findScheduledChange(ex: Executor, userId: string): Promise<PlanChangeRow | undefined> {
  const [row] = await ex
    .select()
    .from(planChanges)
    .where(and(eq(planChanges.userId, userId), eq(planChanges.status, 'scheduled')))
    .limit(1);
  return row;
}

export async function insertPlanChange(ex: Executor, values: typeof planChanges.$inferInsert): Promise<PlanChangeRow> {
  const [row] = await ex.insert(planChanges).values(values).returning();
  return row!;
}

export async function decidePlanChange(ex: Executor, id: string, status: 'withdrawn' | 'applied' | 'obsolete', at: Date): Promise<void> {
  await ex.update(planChanges).set({ status, decidedAt: at }).where(and(eq(planChanges.id, id), eq(planChanges.status, 'scheduled')));
}

/** Scheduled changes whose instant has come, oldest first. */
export async function listDueChanges(ex: Executor, at: Date, limit: number): Promise<PlanChangeRow[]> {
  return ex
    .select()
    .from(planChanges)
    .where(and(eq(planChanges.status, 'scheduled'), lte(planChanges.effectiveAt, at)))
    .orderBy(asc(planChanges.effectiveAt), asc(planChanges.id))
    .limit(limit);
}

/** The change locked, if it is still scheduled (a concurrent run may have decided it). */
export async function lockScheduledChange(ex: Executor, id: string): Promise<PlanChangeRow | undefined> {
  const [row] = await ex
    .select()
    .from(planChanges)
    .where(and(eq(planChanges.id, id), eq(planChanges.status, 'scheduled')))
    .for('update')
    .limit(1);
  return row;
}

export async function setAccountType(ex: Executor, userId: string, accountType: UserRow['accountType']): Promise<void> {
  await ex.update(users).set({ accountType, updatedAt: new Date() }).where(eq(users.id, userId));
}

export async function findCorporateStatus(ex: Executor, id: string): Promise<(typeof corporateAccounts.$inferSelect)['status'] | undefined> {
  const [row] = await ex.select({ status: corporateAccounts.status }).from(corporateAccounts).where(eq(corporateAccounts.id, id)).limit(1);
  return row?.status;
}

export async function findCancellationRequest(ex: Executor, corporateAccountId: string): Promise<CancellationRequestRow | undefined> {
  const [row] = await ex.select().from(corporateCancellationRequests).where(eq(corporateCancellationRequests.corporateAccountId, corporateAccountId)).limit(1);
  return row;
}

/** Stores the request; undefined when the account already has one (the unique key decides, also under concurrency). */
export async function insertCancellationRequest(ex: Executor, values: typeof corporateCancellationRequests.$inferInsert): Promise<CancellationRequestRow | undefined> {
  const [row] = await ex.insert(corporateCancellationRequests).values(values).onConflictDoNothing().returning();
  return row;
}

/** Requests of accounts not yet ended (suspended): what an administrator still has to process, oldest first. */
export async function listOpenCancellationRequests(ex: Executor) {
  return ex
    .select({
      id: corporateCancellationRequests.id,
      corporateAccountId: corporateCancellationRequests.corporateAccountId,
      companyName: corporateAccounts.companyName,
      accountStatus: corporateAccounts.status,
      requestedByEmail: users.email,
      reason: corporateCancellationRequests.reason,
      createdAt: corporateCancellationRequests.createdAt,
    })
    .from(corporateCancellationRequests)
    .innerJoin(corporateAccounts, eq(corporateAccounts.id, corporateCancellationRequests.corporateAccountId))
    .leftJoin(users, eq(users.id, corporateCancellationRequests.requestedBy))
    .where(sql`${corporateAccounts.status} <> 'suspended'`)
    .orderBy(asc(corporateCancellationRequests.createdAt), asc(corporateCancellationRequests.id));
}
