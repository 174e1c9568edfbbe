import { and, eq, inArray, sql } from 'drizzle-orm';
import { daysOfMonth } from '@poi/shared/billing-time';
import type { Executor } from '../../db/client';
import { arrayParam } from '../../db/sql';
import { budgetAlerts, budgets } from '../../db/schema/budgets';
import { BASE_FEE_LINE } from '../../db/schema/usage';

export type BudgetRow = typeof budgets.$inferSelect;

/** A billing account with a budget and one user billed to it (no user: nobody is billed to it now). */
export interface BudgetedMemberRow {
  billingAccountId: string;
  monthlyLimitYen: number;
  hardStop: boolean;
  billingEmails: string[];
  userId: string | null;
}

/** A month's billable quantity of one user at one unit price: a dataset's (datasetId) or the base fee's (null). */
export interface UsageQuantityRow {
  userId: string;
  datasetId: string | null;
  unitPriceSen: number;
  quantity: number;
}

/**
 * Users billed to a billing account, as ensureBillingAccountForUser decides it: members of an active
 * or suspended corporate account go to the corporate one, everyone else to their own.
 */
const BILLED_TO = sql`(
  (ba.kind = 'individual' AND u.id = ba.user_id AND NOT EXISTS (
    SELECT 1 FROM corporate_accounts c WHERE c.id = u.corporate_account_id AND c.status IN ('active', 'suspended')))
  OR (ba.kind = 'corporate' AND u.corporate_account_id = ba.corporate_account_id AND EXISTS (
    SELECT 1 FROM corporate_accounts c WHERE c.id = ba.corporate_account_id AND c.status IN ('active', 'suspended')))
)`;

export async function findBudget(ex: Executor, billingAccountId: string): Promise<BudgetRow | undefined> {
  const [row] = await ex.select().from(budgets).where(eq(budgets.billingAccountId, billingAccountId)).limit(1);
  return row;
}

export async function saveBudget(ex: Executor, billingAccountId: string, monthlyLimitYen: number, hardStop: boolean): Promise<void> {
  await ex
    .insert(budgets)
    .values({ billingAccountId, monthlyLimitYen, hardStop })
    .onConflictDoUpdate({ target: budgets.billingAccountId, set: { monthlyLimitYen, hardStop, updatedAt: sql`now()` } });
}

export async function deleteBudget(ex: Executor, billingAccountId: string): Promise<void> {
  await ex.delete(budgets).where(eq(budgets.billingAccountId, billingAccountId));
}

/** Every budget with the users billed to it (one row per user), or one account's. */
export async function listBudgetedMembers(ex: Executor, billingAccountId?: string): Promise<BudgetedMemberRow[]> {
  const only = billingAccountId ? sql`WHERE b.billing_account_id = ${billingAccountId}` : sql``;
  const result = await ex.execute(sql`
    SELECT b.billing_account_id AS "billingAccountId", b.monthly_limit_yen::float8 AS "monthlyLimitYen", b.hard_stop AS "hardStop",
      ba.billing_emails AS "billingEmails", u.id AS "userId"
    FROM budgets b
    JOIN billing_accounts ba ON ba.id = b.billing_account_id
    LEFT JOIN users u ON ${BILLED_TO}
    ${only}
  `);
  return result.rows as unknown as BudgetedMemberRow[];
}

/** The users whose usage is billed to a billing account. */
export async function listBilledUsers(ex: Executor, billingAccountId: string): Promise<string[]> {
  const result = await ex.execute(sql`
    SELECT u.id AS "userId" FROM billing_accounts ba JOIN users u ON ${BILLED_TO} WHERE ba.id = ${billingAccountId}
  `);
  return (result.rows as Array<{ userId: string }>).map((r) => r.userId);
}

/**
 * A month's billable quantities of some users, grouped as invoice lines are: per dataset and unit
 * price (free datasets left out), and the base fee per unit price (free searches left out). From
 * the monthly rollup the close reads too, so a budget counts exactly what the invoice will bill.
 */
export async function monthUsageQuantities(ex: Executor, userIds: readonly string[], yearMonth: string): Promise<UsageQuantityRow[]> {
  if (!userIds.length) return [];
  const result = await ex.execute(sql`
    SELECT user_id AS "userId", NULLIF(dataset_id, ${BASE_FEE_LINE}::uuid)::text AS "datasetId", unit_price_sen AS "unitPriceSen", searches::float8 AS "quantity"
    FROM usage_charge_monthly
    WHERE year_month = ${yearMonth} AND user_id = ANY(${arrayParam(userIds, 'uuid')}) AND searches > 0
  `);
  return result.rows as unknown as UsageQuantityRow[];
}

/** Searches stored for a month per user (from the daily rollup: cheap, to tell whether anything changed). */
export async function monthSearchCounts(ex: Executor, userIds: readonly string[], yearMonth: string): Promise<Map<string, number>> {
  if (!userIds.length) return new Map();
  const days = daysOfMonth(yearMonth);
  const result = await ex.execute(sql`
    SELECT user_id AS "userId", sum(searches)::float8 AS "searches" FROM usage_daily
    WHERE user_id = ANY(${arrayParam(userIds, 'uuid')}) AND day BETWEEN ${days[0]!}::date AND ${days[days.length - 1]!}::date
    GROUP BY user_id
  `);
  return new Map((result.rows as Array<{ userId: string; searches: number }>).map((r) => [r.userId, Number(r.searches)]));
}

export async function listAlertsSent(ex: Executor, billingAccountIds: readonly string[], yearMonth: string): Promise<Array<{ billingAccountId: string; thresholdPct: number }>> {
  if (!billingAccountIds.length) return [];
  return ex
    .select({ billingAccountId: budgetAlerts.billingAccountId, thresholdPct: budgetAlerts.thresholdPct })
    .from(budgetAlerts)
    .where(and(inArray(budgetAlerts.billingAccountId, [...billingAccountIds]), eq(budgetAlerts.yearMonth, yearMonth)));
}

/** Records an alert; false when it was already recorded (by this or another instance). */
export async function insertAlert(ex: Executor, billingAccountId: string, yearMonth: string, thresholdPct: number): Promise<boolean> {
  const rows = await ex.insert(budgetAlerts).values({ billingAccountId, yearMonth, thresholdPct }).onConflictDoNothing().returning({ pct: budgetAlerts.thresholdPct });
  return rows.length > 0;
}

export async function deleteAlerts(ex: Executor, billingAccountId: string, yearMonth: string, thresholdPcts: readonly number[]): Promise<void> {
  if (!thresholdPcts.length) return;
  await ex
    .delete(budgetAlerts)
    .where(and(eq(budgetAlerts.billingAccountId, billingAccountId), eq(budgetAlerts.yearMonth, yearMonth), inArray(budgetAlerts.thresholdPct, [...thresholdPcts])));
}
