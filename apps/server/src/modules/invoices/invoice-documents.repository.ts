import { and, asc, eq, isNotNull, isNull, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { billingAccounts, invoiceLines, invoices } from '../../db/schema/invoices';
import { payments } from '../../db/schema/payments';

/** An invoice that has been issued (numbered, not a draft), whatever its payment status. */
export async function findIssuedInvoice(ex: Executor, id: string) {
  const [row] = await ex
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, id), isNotNull(invoices.number), ne(invoices.status, 'draft')))
    .limit(1);
  return row;
}

export function linesOfInvoice(ex: Executor, invoiceId: string) {
  return ex.select().from(invoiceLines).where(eq(invoiceLines.invoiceId, invoiceId)).orderBy(asc(invoiceLines.position));
}

export async function findPayment(ex: Executor, id: string) {
  const [row] = await ex.select().from(payments).where(eq(payments.id, id)).limit(1);
  return row;
}

export async function findBillingAccount(ex: Executor, id: string) {
  const [row] = await ex.select().from(billingAccounts).where(eq(billingAccounts.id, id)).limit(1);
  return row;
}

/**
 * Keeps the SHA-256 of an issued invoice's PDF, once (the immutability trigger refuses a change):
 * answers whether this call stored it.
 */
export async function storePdfSha256(ex: Executor, invoiceId: string, sha256: string): Promise<boolean> {
  const rows = await ex
    .update(invoices)
    .set({ pdfSha256: sha256 })
    .where(and(eq(invoices.id, invoiceId), isNull(invoices.pdfSha256)))
    .returning({ id: invoices.id });
  return rows.length > 0;
}
