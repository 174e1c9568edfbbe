import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { creditNoteParamsSchema, invoiceParamsSchema, paymentParamsSchema } from '@poi/shared/schemas/invoices';
import { requireSignIn, requireUser } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { attachment } from '../../lib/http';
import type { InvoiceDocumentsService, PdfDocument } from './invoice-documents.service';

const tags = ['請求'];

function sendPdf(reply: FastifyReply, doc: PdfDocument, fallbackStem: string) {
  return reply
    .header('Content-Type', 'application/pdf')
    .header('Content-Disposition', attachment(doc.fileName, { stem: fallbackStem }))
    .header('Cache-Control', 'private, no-store')
    .send(doc.pdf);
}

export const invoiceDocumentRoutes: FastifyPluginAsyncZod<{ invoiceDocumentsService: InvoiceDocumentsService }> = async (app, { invoiceDocumentsService: service }) => {
  requireSignIn(app);

  app.get(
    '/billing/invoices/:id/pdf',
    {
      schema: {
        tags,
        summary: '請求書(適格請求書)のPDF。発行済みの自分の請求書のみ(管理者はすべて)',
        params: invoiceParamsSchema,
        produces: ['application/pdf'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => sendPdf(reply, await service.invoicePdf(requireUser(request), request.params.id), `invoice-${request.params.id}`),
  );

  app.get(
    '/billing/payments/:id/receipt.pdf',
    {
      schema: {
        tags,
        summary: '支払の領収書PDF。自分の請求書への支払のみ(管理者はすべて)',
        params: paymentParamsSchema,
        produces: ['application/pdf'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => sendPdf(reply, await service.receiptPdf(requireUser(request), request.params.id), `receipt-${request.params.id}`),
  );

  app.get(
    '/billing/credit-notes/:id/pdf',
    {
      schema: {
        tags,
        summary: '返還請求書(適格返還請求書)のPDF。自分の請求書に対するもののみ(管理者はすべて)',
        params: creditNoteParamsSchema,
        produces: ['application/pdf'],
        response: errorResponses(403),
      },
    },
    async (request, reply) => sendPdf(reply, await service.creditNotePdf(requireUser(request), request.params.id), `credit-note-${request.params.id}`),
  );
};
