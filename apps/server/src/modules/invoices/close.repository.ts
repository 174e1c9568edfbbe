import { and, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { daysOfMonth } from '@poi/shared/billing-time';
import type { Executor } from '../../db/client';
import { arrayParam } from '../../db/sql';
import { BASE_FEE_LINE, usageDaily, usagePlatformDaily } from '../../db/schema/usage';
import { auditLogs } from '../../db/schema/audit';
import { billingAccounts, invoiceLines, invoices } from '../../db/schema/invoices';
import { corporateAccounts } from '../../db/schema/corporate';
import { users } from '../../db/schema/users';
import type { ChargeLine } from './charges';
import { TAX_RATE_BP } from './charges';
import type { InvoiceRow } from './invoices.mapper';

function monthDays(yearMonth: string): [string, string] {
  const days = daysOfMonth(yearMonth);
  return [days[0]!, days[days.length - 1]!];
}

export const DELETED_DATASET_NAME = '削除されたデータセット';

export interface UserDatasetUsage {
  userId: string;
  datasetId: string;
  name: string;
  unitPriceSen: number;
  searches: number;
}

export interface UserBaseFeeUsage {
  userId: string;
  unitPriceSen: number;
  searches: number;
}

export interface MonthUsage {
  datasets: UserDatasetUsage[];
  baseFees: UserBaseFeeUsage[];
  /** Each user's account type on their last search of the month. */
  accountTypes: Map<string, string>;
}

/**
 * A month's billable usage per user from the monthly rollups (usage_charge_monthly,
 * usage_user_monthly), priced as recorded: searches per (dataset, price) — a price change
 * mid-month gives two groups — and non-free searches per base fee. Only the given users when
 * userIds is set. The rollups, not the raw events, are read: raw events past their retention are
 * dropped (docs/billing.md "Usage data").
 */
export async function monthUsage(ex: Executor, yearMonth: string, userIds?: readonly string[]): Promise<MonthUsage> {
  if (userIds && !userIds.length) return { datasets: [], baseFees: [], accountTypes: new Map() };
  const who = (column: SQL) => (userIds ? sql`AND ${column} = ANY(${arrayParam(userIds, 'uuid')})` : sql``);
  const [chargeRows, typeRows] = await Promise.all([
    ex.execute<{ user_id: string; dataset_id: string; name: string | null; price_sen: number; searches: number }>(sql`
      SELECT c.user_id, c.dataset_id, ds.name, c.unit_price_sen AS price_sen, c.searches::float8 AS searches
      FROM usage_charge_monthly c
      LEFT JOIN datasets ds ON ds.id = c.dataset_id
      WHERE c.year_month = ${yearMonth} ${who(sql`c.user_id`)} AND c.searches > 0`),
    ex.execute<{ user_id: string; account_type: string }>(sql`
      SELECT m.user_id, m.last_account_type AS account_type
      FROM usage_user_monthly m
      WHERE m.year_month = ${yearMonth} ${who(sql`m.user_id`)}`),
  ]);
  const datasetRows = chargeRows.rows.filter((r) => r.dataset_id !== BASE_FEE_LINE);
  const baseRows = chargeRows.rows.filter((r) => r.dataset_id === BASE_FEE_LINE);
  return {
    datasets: datasetRows.map((r) => ({
      userId: r.user_id,
      datasetId: r.dataset_id,
      name: r.name ?? DELETED_DATASET_NAME,
      unitPriceSen: Number(r.price_sen),
      searches: Number(r.searches),
    })),
    baseFees: baseRows.map((r) => ({ userId: r.user_id, unitPriceSen: Number(r.price_sen), searches: Number(r.searches) })),
    accountTypes: new Map(typeRows.rows.map((r) => [r.user_id, r.account_type])),
  };
}

/** Free searches a user used in a month (from the daily rollup). */
export async function freeSearchesOfUsers(ex: Executor, userIds: readonly string[], yearMonth: string): Promise<number> {
  if (!userIds.length) return 0;
  const [first, last] = monthDays(yearMonth);
  const rows = await ex
    .select({ n: sql<string>`coalesce(sum(${usageDaily.freeSearches}), 0)` })
    .from(usageDaily)
    .where(and(inArray(usageDaily.userId, [...userIds]), sql`${usageDaily.day} BETWEEN ${first} AND ${last}`));
  return Number(rows[0]?.n ?? 0);
}

export interface UserTarget {
  userId: string;
  email: string;
  accountType: string;
  /** The corporate account billed for this user (a member of an active or suspended one). */
  corporateAccountId: string | null;
}

export async function userTargets(ex: Executor, userIds: readonly string[]): Promise<UserTarget[]> {
  if (!userIds.length) return [];
  return ex
    .select({
      userId: users.id,
      email: users.email,
      accountType: users.accountType,
      corporateAccountId: sql<string | null>`CASE WHEN ${corporateAccounts.status} IN ('active', 'suspended') THEN ${corporateAccounts.id} END`,
    })
    .from(users)
    .leftJoin(corporateAccounts, eq(corporateAccounts.id, users.corporateAccountId))
    // One array parameter: a close passes every user of the month (100,000 ids overflow the 65,535 bind parameters of IN (…)).
    .where(sql`${users.id} = ANY(${arrayParam(userIds, 'uuid')})`);
}

/** Users billed to a corporate account: its members. */
export async function corporateMembers(ex: Executor, corporateAccountId: string): Promise<string[]> {
  const rows = await ex.select({ id: users.id }).from(users).where(eq(users.corporateAccountId, corporateAccountId));
  return rows.map((r) => r.id);
}

/** Billing accounts holding a carried (not issued, under the card minimum) invoice of a month before this one. */
export async function accountsWithCarried(ex: Executor, beforeYearMonth: string) {
  return ex
    .selectDistinct({ id: billingAccounts.id, kind: billingAccounts.kind, userId: billingAccounts.userId, corporateAccountId: billingAccounts.corporateAccountId })
    .from(invoices)
    .innerJoin(billingAccounts, eq(billingAccounts.id, invoices.billingAccountId))
    .where(and(eq(invoices.status, 'draft'), isNull(invoices.number), eq(invoices.kind, 'monthly'), lt(invoices.yearMonth, beforeYearMonth)));
}

/** An account's carried amounts before a month: card invoices under ¥50 kept as drafts, never numbered. */
export const carriedCondition = (billingAccountId: string, beforeYearMonth: string) =>
  and(
    eq(invoices.billingAccountId, billingAccountId),
    eq(invoices.status, 'draft'),
    isNull(invoices.number),
    eq(invoices.kind, 'monthly'),
    lt(invoices.yearMonth, beforeYearMonth),
  );

/** Carried invoices of an account before a month, locked: they become this invoice's carry_over lines. */
export async function lockCarried(ex: Executor, billingAccountId: string, beforeYearMonth: string): Promise<InvoiceRow[]> {
  return ex
    .select()
    .from(invoices)
    .where(carriedCondition(billingAccountId, beforeYearMonth))
    .for('update');
}

export async function markCarried(ex: Executor, ids: readonly string[], intoInvoiceId: string): Promise<void> {
  if (!ids.length) return;
  await ex
    .update(invoices)
    .set({ status: 'void', voidReason: `carried_over:${intoInvoiceId}`, updatedAt: new Date() })
    .where(and(inArray(invoices.id, [...ids]), isNull(invoices.number)));
}

/**
 * Claims the month for the account: a draft row under the unique (billing account, month) key.
 * undefined when the month already has its invoice (a second or concurrent close), which then
 * does nothing more; a concurrent claim waits here for the first to commit.
 */
export async function claimMonthlyInvoice(ex: Executor, values: typeof invoices.$inferInsert): Promise<InvoiceRow | undefined> {
  const rows = await ex
    .insert(invoices)
    .values(values)
    .onConflictDoNothing({ target: [invoices.billingAccountId, invoices.yearMonth], where: sql`${invoices.kind} = 'monthly'` })
    .returning();
  return rows[0];
}

export async function insertLines(ex: Executor, invoiceId: string, lines: readonly ChargeLine[]): Promise<void> {
  if (!lines.length) return;
  await ex.insert(invoiceLines).values(
    lines.map((l, i) => ({
      invoiceId,
      position: i + 1,
      kind: l.kind,
      datasetId: l.datasetId,
      description: l.description,
      quantity: l.quantity,
      unitPriceSen: l.unitPriceSen,
      amountYen: l.amountYen,
      taxRateBp: TAX_RATE_BP,
    })),
  );
}

/** Draft invoices only: an issued one never changes (the trigger refuses it too). */
export async function updateDraftInvoice(ex: Executor, id: string, set: Partial<typeof invoices.$inferInsert>): Promise<InvoiceRow> {
  const rows = await ex
    .update(invoices)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(invoices.id, id), isNull(invoices.number)))
    .returning();
  if (!rows[0]) throw new IssuedInvoiceError(id);
  return rows[0];
}

export async function deleteDraftInvoice(ex: Executor, id: string): Promise<void> {
  await ex.delete(invoices).where(and(eq(invoices.id, id), isNull(invoices.number)));
}

export class IssuedInvoiceError extends Error {
  constructor(id: string) {
    super(`invoice ${id} is issued and cannot be changed`);
  }
}

/** Takes up to the invoice's total from the account's credit (locked), answering what was taken. */
export async function takeCredit(ex: Executor, billingAccountId: string, upToYen: number): Promise<number> {
  const [account] = await ex.select({ credit: billingAccounts.creditYen }).from(billingAccounts).where(eq(billingAccounts.id, billingAccountId)).for('update');
  const taken = Math.min(account?.credit ?? 0, upToYen);
  if (taken > 0) {
    await ex
      .update(billingAccounts)
      .set({ creditYen: sql`${billingAccounts.creditYen} - ${taken}`, updatedAt: new Date() })
      .where(eq(billingAccounts.id, billingAccountId));
  }
  return taken;
}

export const MONTH_CLOSED_ACTION = 'billing.month_closed';

/** Months whose close ran to the end (marked in the audit log). */
export async function closedMonths(ex: Executor): Promise<Set<string>> {
  const rows = await ex.selectDistinct({ month: auditLogs.targetId }).from(auditLogs).where(eq(auditLogs.action, MONTH_CLOSED_ACTION));
  return new Set(rows.map((r) => r.month));
}

/** The first Japan-time month with any usage, or undefined (the platform's daily rollup: one row a day, kept with usage_daily). */
export async function firstUsageMonth(ex: Executor): Promise<string | undefined> {
  const rows = await ex.select({ day: sql<string | null>`min(${usagePlatformDaily.day})::text` }).from(usagePlatformDaily);
  return rows[0]?.day?.slice(0, 7);
}

