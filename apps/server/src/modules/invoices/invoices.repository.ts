import { and, asc, count, desc, eq, gte, inArray, isNotNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { billingAccounts, invoiceLines, invoices } from '../../db/schema/invoices';
import { payments } from '../../db/schema/payments';
import { carriedCondition } from './close.repository';
import type { InvoiceRow, PaymentRow } from './invoices.mapper';

/**
 * What is still owed on an invoice, in SQL (before the floor at 0): the twin of `remainingYen` in
 * invoices.mapper.ts. Every query that asks "is something owed" uses this one expression.
 */
export const owedSql = (): SQL => sql`(${invoices.totalYen} - ${invoices.creditAppliedYen} - ${invoices.paidYen} - ${invoices.creditedYen})`;

export interface InvoiceFilters {
  issuedFrom?: string;
  issuedTo?: string;
  amountMin?: number;
  amountMax?: number;
}

/** Issued-or-later invoices of an account (drafts and carried amounts are not invoices yet). */
function listWhere(billingAccountId: string, f: InvoiceFilters): SQL {
  const where: SQL[] = [eq(invoices.billingAccountId, billingAccountId), isNotNull(invoices.number)];
  if (f.issuedFrom) where.push(gte(invoices.issueDate, f.issuedFrom));
  if (f.issuedTo) where.push(lte(invoices.issueDate, f.issuedTo));
  if (f.amountMin !== undefined) where.push(gte(invoices.totalYen, f.amountMin));
  if (f.amountMax !== undefined) where.push(lte(invoices.totalYen, f.amountMax));
  return and(...where)!;
}

export async function listInvoices(
  ex: Executor,
  billingAccountId: string,
  f: InvoiceFilters,
  page?: { limit: number; offset: number },
): Promise<{ rows: InvoiceRow[]; total: number }> {
  const where = listWhere(billingAccountId, f);
  const query = ex.select().from(invoices).where(where).orderBy(desc(invoices.issueDate), desc(invoices.number));
  const [rows, totals] = await Promise.all([
    page ? query.limit(page.limit).offset(page.offset) : query,
    ex.select({ n: count() }).from(invoices).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

export async function findIssuedInvoice(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await ex
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, id), isNotNull(invoices.number)))
    .limit(1);
  return row;
}

export async function invoiceLinesOf(ex: Executor, invoiceId: string) {
  return ex.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, invoiceId)).orderBy(asc(invoiceLines.position));
}

export async function paymentsOf(ex: Executor, invoiceId: string): Promise<PaymentRow[]> {
  return ex.select().from(payments).where(eq(payments.invoiceId, invoiceId)).orderBy(asc(payments.createdAt));
}

/**
 * An invoice of the account is issued, partially paid or overdue with something still owed: the
 * card cannot be removed (and GET /billing/account shows has_open_invoice).
 */
export async function hasOpenInvoice(ex: Executor, billingAccountId: string): Promise<boolean> {
  const rows = await ex
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.billingAccountId, billingAccountId), isNotNull(invoices.number), inArray(invoices.status, ['issued', 'partially_paid', 'overdue']), sql`${owedSql()} > 0`))
    .limit(1);
  return rows.length > 0;
}

/** Carried amounts (card invoices under ¥50 not issued) of an account, for this month's estimate. */
export async function carriedOf(ex: Executor, billingAccountId: string, beforeYearMonth: string): Promise<InvoiceRow[]> {
  return ex.select().from(invoices).where(carriedCondition(billingAccountId, beforeYearMonth));
}

export async function updateBillingDetails(
  ex: Executor,
  id: string,
  set: Pick<typeof billingAccounts.$inferInsert, 'addressee' | 'honorific' | 'postalCode' | 'address' | 'billingEmails'>,
) {
  const [row] = await ex
    .update(billingAccounts)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(billingAccounts.id, id))
    .returning();
  return row!;
}
