import type { FastifyBaseLogger } from 'fastify';
import { isAdmin } from '@poi/shared/roles';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import type { InvoiceRow } from './invoices.mapper';
import * as repo from './invoice-documents.repository';
import { renderInvoicePdf, renderReceiptPdf, sha256Hex } from './invoice-pdf';
import { findCreditNote, storeCreditNotePdfSha256 } from './invoice-adjustments.repository';
import { renderCreditNotePdf } from './credit-note-pdf';
import { dayOf } from '@poi/shared/billing-time';

import { BILLING_MEMBER_FORBIDDEN, INVOICE_NOT_FOUND } from './invoices.service';

export const RECEIPT_NOT_FOUND = '領収書が見つかりません';
const CREDIT_NOTE_NOT_FOUND = '返還請求書が見つかりません';

export interface PdfDocument {
  fileName: string;
  pdf: Buffer;
}

export interface InvoiceDocumentsService {
  /** The PDF of an issued invoice the caller may read (an admin: any). */
  invoicePdf(user: CurrentUser, invoiceId: string): Promise<PdfDocument>;
  /** The 領収書 of a payment on such an invoice. */
  receiptPdf(user: CurrentUser, paymentId: string): Promise<PdfDocument>;
  /** A credit note (適格返還請求書) on such an invoice. */
  creditNotePdf(user: CurrentUser, creditNoteId: string): Promise<PdfDocument>;
}

export function createInvoiceDocumentsService(deps: { db: Db; config: Pick<Config, 'bank'>; log: FastifyBaseLogger }): InvoiceDocumentsService {
  const { db, config, log } = deps;

  /**
   * Whether the caller may read this invoice: an admin, the individual it is addressed to, or an
   * owner / billing member of the corporate account. Anyone else is told "not found" (its
   * existence is not revealed); a plain corporate member is refused as on the other billing calls.
   */
  async function assertReadable(user: CurrentUser, invoice: InvoiceRow, notFound: string): Promise<void> {
    if (isAdmin({ role: user.role, account_type: user.accountType })) return;
    const account = await repo.findBillingAccount(db, invoice.billingAccountId);
    const own = account?.kind === 'individual' ? account.userId === user.id : !!account?.corporateAccountId && account.corporateAccountId === user.corporateAccountId;
    if (!own) throw new AppError('NOT_FOUND', notFound);
    if (account?.kind === 'corporate' && user.corporateRole === 'member') throw new AppError('FORBIDDEN', BILLING_MEMBER_FORBIDDEN);
  }

  /**
   * Renders from the invoice's own columns and snapshots, so every render of an issued invoice
   * gives the same bytes: the first render's SHA-256 is stored, later ones are compared with it.
   * A void invoice is served with its 「無効」 stamp (void date and reason): that render is not
   * the issued document, so the stored hash stays the stamp-less original's, which is rendered
   * and checked alongside (and reproducible byte for byte from the same columns at any time).
   */
  async function render(invoice: InvoiceRow): Promise<Buffer> {
    const lines = await repo.linesOfInvoice(db, invoice.id);
    const pdf = await renderInvoicePdf({ invoice, lines, bank: config.bank ?? null });
    await checkHash(invoice, pdf);
    if (invoice.status !== 'void' || !invoice.voidedAt) return pdf;
    return renderInvoicePdf({ invoice, lines, bank: config.bank ?? null, voided: { on: dayOf(invoice.voidedAt), reason: invoice.voidReason ?? '' } });
  }

  async function checkHash(invoice: InvoiceRow, pdf: Buffer): Promise<void> {
    const sha256 = sha256Hex(pdf);
    if (!invoice.pdfSha256) {
      if (!(await repo.storePdfSha256(db, invoice.id, sha256))) {
        const again = await repo.findIssuedInvoice(db, invoice.id);
        if (again?.pdfSha256 && again.pdfSha256 !== sha256) log.warn({ invoice: invoice.number, stored: again.pdfSha256, rendered: sha256 }, 'invoice PDF differs from its first render');
      }
    } else if (invoice.pdfSha256 !== sha256) {
      log.warn({ invoice: invoice.number, stored: invoice.pdfSha256, rendered: sha256 }, 'invoice PDF differs from its first render');
    }
  }

  return {
    async invoicePdf(user, invoiceId) {
      const invoice = await repo.findIssuedInvoice(db, invoiceId);
      if (!invoice) throw new AppError('NOT_FOUND', INVOICE_NOT_FOUND);
      await assertReadable(user, invoice, INVOICE_NOT_FOUND);
      return { fileName: `${invoice.number}.pdf`, pdf: await render(invoice) };
    },

    async receiptPdf(user, paymentId) {
      const payment = await repo.findPayment(db, paymentId);
      const invoice = payment && (await repo.findIssuedInvoice(db, payment.invoiceId));
      if (!payment || !invoice) throw new AppError('NOT_FOUND', RECEIPT_NOT_FOUND);
      await assertReadable(user, invoice, RECEIPT_NOT_FOUND);
      return { fileName: `${payment.receiptNumber}.pdf`, pdf: await renderReceiptPdf({ payment, invoice }) };
    },

    async creditNotePdf(user, creditNoteId) {
      const note = await findCreditNote(db, creditNoteId);
      const invoice = note && (await repo.findIssuedInvoice(db, note.invoiceId));
      if (!note || !invoice) throw new AppError('NOT_FOUND', CREDIT_NOTE_NOT_FOUND);
      await assertReadable(user, invoice, CREDIT_NOTE_NOT_FOUND);
      const pdf = await renderCreditNotePdf({ note, invoice });
      const sha256 = sha256Hex(pdf);
      if (!note.pdfSha256) await storeCreditNotePdfSha256(db, note.id, sha256);
      else if (note.pdfSha256 !== sha256) log.warn({ creditNote: note.number, stored: note.pdfSha256, rendered: sha256 }, 'credit note PDF differs from its first render');
      return { fileName: `${note.number}.pdf`, pdf };
    },
  };
}
