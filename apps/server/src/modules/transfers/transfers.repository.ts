import { and, asc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { billingAccounts, invoices } from '../../db/schema/invoices';
import { corporateAccounts } from '../../db/schema/corporate';
import type { InvoiceRow } from '../invoices/invoices.mapper';
import { owedSql } from '../invoices/invoices.repository';

const OPEN: InvoiceRow['status'][] = ['issued', 'partially_paid', 'overdue'];

/**
 * Issued bank-transfer invoices with something left to pay, and card invoices the card could not
 * settle (overdue: the customer may transfer instead): the transfers expected.
 */
const pendingWhere = () =>
  and(
    or(eq(invoices.paymentMethod, 'bank_transfer'), and(eq(invoices.paymentMethod, 'card'), eq(invoices.status, 'overdue'))),
    isNotNull(invoices.number),
    inArray(invoices.status, OPEN),
    sql`${owedSql()} > 0`,
  );

export async function countPendingTransfers(ex: Executor): Promise<number> {
  const [count] = await ex.select({ n: sql<number>`count(*)::int` }).from(invoices).where(pendingWhere());
  return Number(count?.n ?? 0);
}

/** A page of the transfers expected, the earliest due first, with the customer's number and kana. */
export async function listPendingTransfers(ex: Executor, limit: number, offset: number) {
  return ex
    .select({ invoice: invoices, customerNumber: billingAccounts.customerNumber, kana: corporateAccounts.companyNameKana })
    .from(invoices)
    .innerJoin(billingAccounts, eq(billingAccounts.id, invoices.billingAccountId))
    .leftJoin(corporateAccounts, eq(corporateAccounts.id, billingAccounts.corporateAccountId))
    .where(pendingWhere())
    .orderBy(asc(invoices.dueDate), asc(invoices.number))
    .limit(limit)
    .offset(offset);
}

/** The invoice, locked for the rest of the transaction (a confirmation). */
export async function lockInvoice(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  const [invoice] = await ex.select().from(invoices).where(eq(invoices.id, id)).for('update').limit(1);
  return invoice;
}

/** The billing e-mail addresses of an account (none when it is gone). */
export async function billingEmailsOf(ex: Executor, billingAccountId: string): Promise<string[]> {
  const [account] = await ex.select({ emails: billingAccounts.billingEmails }).from(billingAccounts).where(eq(billingAccounts.id, billingAccountId)).limit(1);
  return account?.emails ?? [];
}

/** Issued or partially paid bank-transfer invoices due before `today` with something left to pay, locked, the earliest due first. */
export async function lockOverdueCandidates(ex: Executor, today: string): Promise<InvoiceRow[]> {
  return ex
    .select()
    .from(invoices)
    .where(
      and(
        eq(invoices.paymentMethod, 'bank_transfer'),
        isNotNull(invoices.number),
        inArray(invoices.status, ['issued', 'partially_paid']),
        lt(invoices.dueDate, today),
        sql`${owedSql()} > 0`,
      ),
    )
    .orderBy(asc(invoices.dueDate), asc(invoices.number))
    .for('update');
}

export async function markInvoiceOverdue(ex: Executor, id: string): Promise<void> {
  await ex.update(invoices).set({ status: 'overdue', updatedAt: sql`now()` }).where(eq(invoices.id, id));
}
