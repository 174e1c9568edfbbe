import { dayOf } from '@poi/shared/billing-time';
import { formatYenAmount } from '@poi/shared/format';
import type { CreditNoteBody, InvoiceAdjustmentResult } from '@poi/shared/schemas/invoices';
import type { Db } from '../../db/client';
import { inTransaction, type Tx } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import { writeAudit, type AuditActor } from '../audit/audit';
import { addCredit } from '../billing-accounts/billing-accounts.repository';
import { creditNoteSplit, TAX_RATE_BP } from './charges';
import * as repo from './invoice-adjustments.repository';
import { remainingYen, toCreditNote, toInvoiceSummary, type InvoiceRow } from './invoices.mapper';
import { INVOICE_NOT_FOUND } from './invoices.service';
import { nextCreditNoteNumber } from './numbering.repository';

/*
 * Void, credit notes (適格返還請求書) and write-off of issued invoices, by an administrator
 * (docs/billing.md "Void, credit notes and write-off"). Each runs in one transaction that first
 * locks the invoice row, so a double submit or two admins at once are ordered: the second sees the
 * first's result (void twice → 409; two credit notes never exceed the total together).
 */

const ADJUSTMENT_MESSAGES = {
  alreadyVoid: 'この請求書はすでに無効です',
  voidUncollectible: '貸倒れ処理済みの請求書は無効にできません',
  voidPaid: '入金のある請求書は無効にできません。返還請求書を発行してください',
  voidCredited: '返還請求書を発行済みの請求書は無効にできません',
  creditVoid: '無効の請求書には返還請求書を発行できません',
  creditUncollectible: '貸倒れ処理済みの請求書には返還請求書を発行できません',
  creditNothingLeft: 'この請求書はすでに全額が返還済みです',
  creditRequestReused: 'この request_id は別の返還請求書の発行に使われています。新しい request_id で送信してください',
  writeOffNotOverdue: '貸倒れ処理できるのは支払期限超過の請求書のみです',
  writeOffNothingOwed: '未払残高のない請求書は貸倒れ処理できません',
  notIssued: '発行済みの請求書のみ操作できます',
} as const;

const creditNoteTooLarge = (left: number) => `返還額の合計が請求金額(税込)を超えます。この請求書に発行できる返還額は${formatYenAmount(left)}までです`;

export interface InvoiceAdjustmentsService {
  voidInvoice(invoiceId: string, reason: string, actor: AuditActor): Promise<InvoiceAdjustmentResult>;
  issueCreditNote(invoiceId: string, body: CreditNoteBody, actor: AuditActor): Promise<InvoiceAdjustmentResult>;
  writeOff(invoiceId: string, reason: string, actor: AuditActor): Promise<InvoiceAdjustmentResult>;
}

/** The figures an audit row keeps before and after an adjustment. */
const auditState = (inv: InvoiceRow) => ({
  status: inv.status,
  total_yen: inv.totalYen,
  credit_applied_yen: inv.creditAppliedYen,
  paid_yen: inv.paidYen,
  credited_yen: inv.creditedYen,
  remaining_yen: remainingYen(inv),
  next_retry_at: inv.nextRetryAt?.toISOString() ?? null,
});

const SETTLEABLE: InvoiceRow['status'][] = ['issued', 'partially_paid', 'overdue'];

export function createInvoiceAdjustmentsService(deps: { db: Db; now?: () => Date }): InvoiceAdjustmentsService {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function locked(tx: Tx, id: string): Promise<InvoiceRow> {
    const invoice = await repo.lockIssuedInvoice(tx, id);
    if (!invoice) throw new AppError('NOT_FOUND', INVOICE_NOT_FOUND);
    if (invoice.status === 'draft') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.notIssued);
    return invoice;
  }

  return {
    voidInvoice(invoiceId, reason, actor) {
      return inTransaction(db, async (tx) => {
        const invoice = await locked(tx, invoiceId);
        if (invoice.status === 'void') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.alreadyVoid);
        if (invoice.status === 'uncollectible') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.voidUncollectible);
        if (invoice.status === 'paid' || invoice.status === 'partially_paid' || invoice.paidYen > 0 || (await repo.countPaymentsOf(tx, invoice.id)) > 0) {
          throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.voidPaid);
        }
        if (invoice.creditedYen > 0) throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.voidCredited);
        const at = now();
        const updated = await repo.markInvoiceVoid(tx, invoice.id, reason, at);
        // The account credit this invoice consumed goes back to the account; the invoice keeps
        // printing it (an issued document never changes).
        if (invoice.creditAppliedYen > 0) await addCredit(tx, invoice.billingAccountId, invoice.creditAppliedYen);
        await writeAudit(tx, actor, {
          action: 'invoice.void',
          targetType: 'invoice',
          targetId: invoice.id,
          before: auditState(invoice),
          after: { ...auditState(updated), void_reason: reason, credit_returned_yen: invoice.creditAppliedYen, number: invoice.number },
        });
        return { invoice: toInvoiceSummary(updated), credit_note: null, credit_to_account: invoice.creditAppliedYen };
      });
    },

    issueCreditNote(invoiceId, body, actor) {
      return inTransaction(db, async (tx) => {
        const invoice = await locked(tx, invoiceId);
        // A resubmitted request (same request_id) answers the note it issued; the invoice row lock
        // orders it after the first, so it finds that note.
        const earlier = body.request_id ? await repo.findCreditNoteByRequest(tx, body.request_id) : undefined;
        if (earlier) {
          if (earlier.invoiceId !== invoice.id || earlier.amountYen !== body.amount_yen) throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.creditRequestReused);
          return { invoice: toInvoiceSummary(invoice), credit_note: toCreditNote(earlier), credit_to_account: earlier.creditedToAccountYen };
        }
        if (invoice.status === 'void') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.creditVoid);
        if (invoice.status === 'uncollectible') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.creditUncollectible);
        const left = invoice.totalYen - invoice.creditedYen;
        if (left <= 0) throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.creditNothingLeft);
        if (body.amount_yen > left) throw new AppError('CONFLICT', creditNoteTooLarge(left));

        const at = now();
        const issueDate = dayOf(at);
        const owedBefore = remainingYen(invoice);
        const applied = Math.min(body.amount_yen, owedBefore);
        const toAccount = body.amount_yen - applied;
        const { subtotalYen, taxYen } = creditNoteSplit(invoice.creditedYen, body.amount_yen);
        const creditedYen = invoice.creditedYen + body.amount_yen;
        const owedAfter = remainingYen({ ...invoice, creditedYen });
        // Settled by the note: 'paid' when money (or account credit) was received, else the status
        // stays and the invoice simply owes nothing (the console labels it 返還済).
        const settles = owedAfter === 0 && SETTLEABLE.includes(invoice.status);
        const received = invoice.paidYen + invoice.creditAppliedYen > 0;
        const status = settles && received ? 'paid' : invoice.status;

        const note = await repo.insertCreditNote(tx, {
          number: await nextCreditNoteNumber(tx, issueDate),
          invoiceId: invoice.id,
          billingAccountId: invoice.billingAccountId,
          issueDate,
          amountYen: body.amount_yen,
          subtotalYen,
          taxYen,
          taxRateBp: TAX_RATE_BP,
          appliedToInvoiceYen: applied,
          creditedToAccountYen: toAccount,
          description: body.description || `POI Cloud 利用料(${invoice.periodStart}〜${invoice.periodEnd}、請求書番号 ${invoice.number})の返還`,
          reason: body.reason,
          // The parties of the original transaction, as its invoice recorded them.
          issuerSnapshot: invoice.issuerSnapshot,
          recipientSnapshot: invoice.recipientSnapshot,
          createdBy: actor.id,
          requestId: body.request_id ?? null,
          createdAt: at,
        });
        const updated = await repo.setInvoiceCredited(tx, invoice.id, { creditedYen, status, paidAt: status === 'paid' && invoice.status !== 'paid' ? at : null, stopRetries: owedAfter === 0 }, at);
        if (toAccount > 0) await addCredit(tx, invoice.billingAccountId, toAccount);
        await writeAudit(tx, actor, {
          action: 'invoice.credit_note',
          targetType: 'invoice',
          targetId: invoice.id,
          before: auditState(invoice),
          after: {
            ...auditState(updated),
            credit_note_id: note.id,
            credit_note_number: note.number,
            amount_yen: note.amountYen,
            subtotal_yen: note.subtotalYen,
            tax_yen: note.taxYen,
            applied_to_invoice_yen: applied,
            credited_to_account_yen: toAccount,
            reason: body.reason,
          },
        });
        return { invoice: toInvoiceSummary(updated), credit_note: toCreditNote(note), credit_to_account: toAccount };
      });
    },

    writeOff(invoiceId, reason, actor) {
      return inTransaction(db, async (tx) => {
        const invoice = await locked(tx, invoiceId);
        if (invoice.status !== 'overdue') throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.writeOffNotOverdue);
        if (remainingYen(invoice) === 0) throw new AppError('CONFLICT', ADJUSTMENT_MESSAGES.writeOffNothingOwed);
        const updated = await repo.markInvoiceWrittenOff(tx, invoice.id, reason, now());
        await writeAudit(tx, actor, {
          action: 'invoice.write_off',
          targetType: 'invoice',
          targetId: invoice.id,
          before: auditState(invoice),
          after: { ...auditState(updated), write_off_reason: reason, written_off_yen: remainingYen(invoice) },
        });
        return { invoice: toInvoiceSummary(updated), credit_note: null, credit_to_account: 0 };
      });
    },
  };
}
