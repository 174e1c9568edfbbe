import type { FastifyBaseLogger } from 'fastify';
import { isAdmin } from '@poi/shared/roles';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import type { InvoiceRow } from './invoices.mapper';
import * as repo from './invoice-documents.repository';
import { renderInvoicePdf, renderReceiptPdf, sha256Hex } from './invoice-pdf';

import { BILLING_MEMBER_FORBIDDEN, INVOICE_NOT_FOUND } from './invoices.service';

export const RECEIPT_NOT_FOUND = '領収書が見つかりません';

export interface PdfDocument {
  fileName: string;
  pdf: Buffer;
}

export interface InvoiceDocumentsService {
  /** The PDF of an issued invoice the caller may read (an admin: any). */
  invoicePdf(user: CurrentUser, invoiceId: string): Promise<PdfDocument>;
  /** The 領収書 of a payment on such an invoice. */
  receiptPdf(user: CurrentUser, paymentId: string): Promise<PdfDocument>;
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
   */
  async function render(invoice: InvoiceRow): Promise<Buffer> {
    const lines = await repo.linesOfInvoice(db, invoice.id);
    const pdf = await renderInvoicePdf({ invoice, lines, bank: config.bank ?? null });
    const sha256 = sha256Hex(pdf);
    if (!invoice.pdfSha256) {
      if (!(await repo.storePdfSha256(db, invoice.id, sha256))) {
        const again = await repo.findIssuedInvoice(db, invoice.id);
        if (again?.pdfSha256 && again.pdfSha256 !== sha256) log.warn({ invoice: invoice.number, stored: again.pdfSha256, rendered: sha256 }, 'invoice PDF differs from its first render');
      }
    } else if (invoice.pdfSha256 !== sha256) {
      log.warn({ invoice: invoice.number, stored: invoice.pdfSha256, rendered: sha256 }, 'invoice PDF differs from its first render');
    }
    return pdf;
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
  };
}
