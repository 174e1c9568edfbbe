import type { FastifyBaseLogger } from 'fastify';
import { dayOf, endOfDay } from '@poi/shared/billing-time';
import { TRANSFER_FEE_TOLERANCE_YEN, type ConfirmTransferBody, type PendingTransfer, type PendingTransfers, type PendingTransfersQuery } from '@poi/shared/schemas/transfers';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import type { Mailer } from '../../plugins/mail';
import { SYSTEM_ACTOR, writeAudit, type AuditActor } from '../audit/audit';
import { remainingYen, toInvoiceSummary, toPayment, type InvoiceRow } from '../invoices/invoices.mapper';
import { InvoiceSettledError, recordPayment } from '../payments/payments.repository';
import { buildTransferReceiptMail } from './transfer-mail';
import { billingEmailsOf, countPendingTransfers, listPendingTransfers, lockInvoice, lockOverdueCandidates, markInvoiceOverdue } from './transfers.repository';

export const transferMessages = {
  notFound: '請求書が見つかりません',
  notBankTransfer: 'この請求書はカード払いの請求書です。振込を消し込めるのは支払期限超過のときのみです',
  notIssued: 'この請求書はまだ発行されていません',
  settled: 'この請求書はすでに入金済み(または無効)のため、入金を消し込めません',
  shortfallTooLarge: `不足額が${TRANSFER_FEE_TOLERANCE_YEN.toLocaleString('ja-JP')}円を超えるため、振込手数料として処理できません。一部入金として登録してください`,
  invalidDate: '入金日が正しい日付ではありません',
  futureDate: '入金日に未来の日付は指定できません',
};

const OPEN: InvoiceRow['status'][] = ['issued', 'partially_paid', 'overdue'];
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ConfirmResult {
  invoice: ReturnType<typeof toInvoiceSummary>;
  payment: ReturnType<typeof toPayment>;
  credit_added: number;
}

export interface TransfersService {
  listPending(query: PendingTransfersQuery, now?: Date): Promise<PendingTransfers>;
  confirm(invoiceId: string, body: ConfirmTransferBody, actor: AuditActor, now?: Date): Promise<ConfirmResult>;
  /** Moves issued/partially paid bank-transfer invoices past their due date (Japan time) to overdue. */
  markOverdue(now?: Date): Promise<{ marked: number }>;
  /** Waits for receipt mails started so far. */
  idle(): Promise<void>;
  /** Waits for the receipt mails under way (shutdown). */
  stop(): Promise<void>;
}

/**
 * The wait of the overdue marker (app.ts's job runner) after a run: shortly after the next
 * Japan-time midnight (the job runner wakes it at least hourly, as timers drift; it is idempotent:
 * a day's invoices move once).
 */
export function untilAfterMidnight(now: Date): number {
  return Math.max(endOfDay(dayOf(now)).getTime() - now.getTime() + 60_000, 1000);
}

/** Whole days from a due date to today (Japan time), 0 when not yet due. */
export function daysOverdue(dueDate: string, now: Date): number {
  const today = dayOf(now);
  return Math.max(0, Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / DAY_MS));
}

const isRealDate = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
};

/**
 * Bank transfers (docs/billing.md "Bank transfers"): the list of transfers expected,
 * an administrator's confirmation of one received (exact, short — optionally booking a small
 * shortfall as the transfer fee — or over, the excess kept as credit), a receipt mail after the
 * commit, and the daily overdue marker.
 */
export function createTransfersService(deps: { db: Db; mailer: Mailer; log: FastifyBaseLogger; publicUrl: string; now?: () => Date }): TransfersService {
  const { db, mailer, log } = deps;
  const clock = deps.now ?? (() => new Date());
  const background = new Set<Promise<unknown>>();

  function sendReceipt(invoice: InvoiceRow, payment: Parameters<typeof buildTransferReceiptMail>[2], creditAdded: number, emails: string[]) {
    for (const to of emails) {
      const p = mailer.send(buildTransferReceiptMail(to, invoice, payment, creditAdded, deps.publicUrl)).catch((err) => log.warn({ err, invoiceId: invoice.id }, 'transfer receipt mail not sent'));
      background.add(p);
      void p.finally(() => background.delete(p));
    }
  }

  async function markOverdue(now = clock()): Promise<{ marked: number }> {
    const today = dayOf(now);
    return inTransaction(db, async (tx) => {
      const due = await lockOverdueCandidates(tx, today);
      for (const row of due) {
        await markInvoiceOverdue(tx, row.id);
        await writeAudit(tx, SYSTEM_ACTOR, {
          action: 'invoice.overdue',
          targetType: 'invoice',
          targetId: row.id,
          before: { status: row.status, due_date: row.dueDate },
          after: { status: 'overdue', remaining: remainingYen(row), as_of: today },
        });
      }
      return { marked: due.length };
    });
  }

  return {
    async listPending(query, now = clock()) {
      const count = await countPendingTransfers(db);
      const rows = await listPendingTransfers(db, query.limit, query.offset);
      const transfers: PendingTransfer[] = rows.map(({ invoice, customerNumber, kana }) => {
        const recipient = invoice.recipientSnapshot as { addressee?: string; customer_number?: string };
        return {
          invoice_id: invoice.id,
          invoice_number: invoice.number!,
          customer_name: recipient.addressee ?? '',
          customer_kana: kana ?? null,
          customer_number: recipient.customer_number ?? customerNumber,
          total: invoice.totalYen,
          paid: invoice.paidYen,
          remaining: remainingYen(invoice),
          due_date: invoice.dueDate ?? '',
          days_overdue: invoice.dueDate ? daysOverdue(invoice.dueDate, now) : 0,
          status: invoice.status,
        };
      });
      return { transfers, total: count };
    },

    async confirm(invoiceId, body, actor, now = clock()) {
      if (!isRealDate(body.received_on)) throw new AppError('VALIDATION_ERROR', transferMessages.invalidDate, { errors: [{ field: 'received_on', message: transferMessages.invalidDate }] });
      if (body.received_on > dayOf(now)) {
        throw new AppError('VALIDATION_ERROR', transferMessages.futureDate, { errors: [{ field: 'received_on', message: transferMessages.futureDate }] });
      }
      const out = await inTransaction(db, async (tx) => {
        const invoice = await lockInvoice(tx, invoiceId);
        if (!invoice) throw new AppError('NOT_FOUND', transferMessages.notFound);
        if (!invoice.number || invoice.status === 'draft') throw new AppError('CONFLICT', transferMessages.notIssued);
        // A card invoice the card could not settle (overdue after its retries) may be paid by transfer too.
        if (invoice.paymentMethod !== 'bank_transfer' && invoice.status !== 'overdue') throw new AppError('CONFLICT', transferMessages.notBankTransfer);
        if (!OPEN.includes(invoice.status) || remainingYen(invoice) === 0) throw new AppError('CONFLICT', transferMessages.settled);
        const shortfall = remainingYen(invoice) - body.received_amount;
        let feeYen = 0;
        if (body.book_shortfall_as_fee && shortfall > 0) {
          if (shortfall > TRANSFER_FEE_TOLERANCE_YEN) {
            throw new AppError('VALIDATION_ERROR', transferMessages.shortfallTooLarge, { errors: [{ field: 'book_shortfall_as_fee', message: transferMessages.shortfallTooLarge }] });
          }
          feeYen = shortfall;
        }
        let recorded;
        try {
          recorded = await recordPayment(tx, actor, {
            invoiceId: invoice.id,
            method: 'bank_transfer',
            amountYen: body.received_amount,
            feeYen,
            receivedOn: body.received_on,
            payerName: body.payer_name,
            note: body.note ?? null,
          });
        } catch (err) {
          if (err instanceof InvoiceSettledError) throw new AppError('CONFLICT', transferMessages.settled);
          throw err;
        }
        return { ...recorded, emails: await billingEmailsOf(tx, invoice.billingAccountId) };
      });
      sendReceipt(out.invoice, out.payment, out.creditAdded, out.emails);
      return { invoice: toInvoiceSummary(out.invoice), payment: toPayment(out.payment), credit_added: out.creditAdded };
    },

    markOverdue,

    async idle() {
      while (background.size) await Promise.all([...background]);
    },

    async stop() {
      await Promise.all([...background]);
    },
  };
}
