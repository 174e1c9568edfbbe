import { and, asc, count, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { creditNotes } from '../../db/schema/credit-notes';
import { invoices } from '../../db/schema/invoices';
import { payments } from '../../db/schema/payments';
import type { CreditNoteRow, InvoiceRow } from './invoices.mapper';

/*
 * The SQL of void, credit notes and write-off (invoice-adjustments.service.ts). Each operation
 * locks the invoice row first, so two adjustments of one invoice (or an adjustment and a payment,
 * which locks the same row) run one after the other.
 */

/** An issued invoice, locked FOR UPDATE for the rest of the transaction. */
export async function lockIssuedInvoice(ex: Executor, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await ex
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, id), isNotNull(invoices.number)))
    .for('update')
    .limit(1);
  return row;
}

export async function countPaymentsOf(ex: Executor, invoiceId: string): Promise<number> {
  const [row] = await ex.select({ n: count() }).from(payments).where(eq(payments.invoiceId, invoiceId));
  return Number(row?.n ?? 0);
}

/** Void: the status, its reason and date; card retries stop. */
export async function markInvoiceVoid(ex: Executor, id: string, reason: string, at: Date): Promise<InvoiceRow> {
  const [row] = await ex
    .update(invoices)
    .set({ status: 'void', voidReason: reason, voidedAt: at, nextRetryAt: null, updatedAt: at })
    .where(eq(invoices.id, id))
    .returning();
  return row!;
}

/** Write-off: uncollectible, its reason and date; card retries stop. */
export async function markInvoiceWrittenOff(ex: Executor, id: string, reason: string, at: Date): Promise<InvoiceRow> {
  const [row] = await ex
    .update(invoices)
    .set({ status: 'uncollectible', writeOffReason: reason, writtenOffAt: at, nextRetryAt: null, updatedAt: at })
    .where(eq(invoices.id, id))
    .returning();
  return row!;
}

/** A credit note booked on the invoice: the new Σ credited, and the status when it settled the invoice. */
export async function setInvoiceCredited(
  ex: Executor,
  id: string,
  set: { creditedYen: number; status: InvoiceRow['status']; paidAt: Date | null; stopRetries: boolean },
  at: Date,
): Promise<InvoiceRow> {
  const [row] = await ex
    .update(invoices)
    .set({
      creditedYen: set.creditedYen,
      status: set.status,
      ...(set.paidAt ? { paidAt: set.paidAt } : {}),
      ...(set.stopRetries ? { nextRetryAt: null } : {}),
      updatedAt: at,
    })
    .where(eq(invoices.id, id))
    .returning();
  return row!;
}

export async function insertCreditNote(ex: Executor, values: typeof creditNotes.$inferInsert): Promise<CreditNoteRow> {
  const [row] = await ex.insert(creditNotes).values(values).returning();
  return row!;
}

export function creditNotesOf(ex: Executor, invoiceId: string): Promise<CreditNoteRow[]> {
  return ex.select().from(creditNotes).where(eq(creditNotes.invoiceId, invoiceId)).orderBy(asc(creditNotes.createdAt), asc(creditNotes.number));
}

export async function findCreditNoteByRequest(ex: Executor, requestId: string): Promise<CreditNoteRow | undefined> {
  const [row] = await ex.select().from(creditNotes).where(eq(creditNotes.requestId, requestId)).limit(1);
  return row;
}

export async function findCreditNote(ex: Executor, id: string): Promise<CreditNoteRow | undefined> {
  const [row] = await ex.select().from(creditNotes).where(eq(creditNotes.id, id)).limit(1);
  return row;
}

/** Keeps the SHA-256 of a credit note's PDF, once (the trigger refuses a change); answers whether this call stored it. */
export async function storeCreditNotePdfSha256(ex: Executor, id: string, sha256: string): Promise<boolean> {
  const rows = await ex
    .update(creditNotes)
    .set({ pdfSha256: sha256 })
    .where(and(eq(creditNotes.id, id), isNull(creditNotes.pdfSha256)))
    .returning({ id: creditNotes.id });
  return rows.length > 0;
}
