import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { numberCounters } from '../../db/schema/invoices';

/**
 * The next number of a series ('invoice:202611', 'receipt:202611'), gap-free: the counter row is
 * created or locked and bumped in one statement inside the caller's transaction, so a rolled-back
 * issue gives its number back and two issues never share one. Call it only in a transaction.
 */
export async function nextNumber(ex: Executor, series: string): Promise<number> {
  const rows = await ex
    .insert(numberCounters)
    .values({ series, lastNumber: 1 })
    .onConflictDoUpdate({ target: numberCounters.series, set: { lastNumber: sql`${numberCounters.lastNumber} + 1` } })
    .returning({ n: numberCounters.lastNumber });
  return rows[0]!.n;
}

/** POI-YYYYMM-NNNNNN for the invoice of a 'YYYY-MM' month. */
export async function nextInvoiceNumber(ex: Executor, yearMonth: string): Promise<string> {
  const ym = yearMonth.replace('-', '');
  return `POI-${ym}-${String(await nextNumber(ex, `invoice:${ym}`)).padStart(6, '0')}`;
}

/** R-YYYYMM-NNNNNN for a payment received on a 'YYYY-MM-DD' day. */
export async function nextReceiptNumber(ex: Executor, receivedOn: string): Promise<string> {
  const ym = receivedOn.slice(0, 7).replace('-', '');
  return `R-${ym}-${String(await nextNumber(ex, `receipt:${ym}`)).padStart(6, '0')}`;
}

/** CN-YYYYMM-NNNNNN for a credit note (適格返還請求書) issued on a 'YYYY-MM-DD' day. */
export async function nextCreditNoteNumber(ex: Executor, issueDate: string): Promise<string> {
  const ym = issueDate.slice(0, 7).replace('-', '');
  return `CN-${ym}-${String(await nextNumber(ex, `credit_note:${ym}`)).padStart(6, '0')}`;
}
