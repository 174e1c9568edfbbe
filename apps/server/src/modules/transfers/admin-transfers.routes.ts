import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { confirmTransferBodySchema, confirmTransferResponseSchema, pendingTransfersQuerySchema, pendingTransfersResponseSchema } from '@poi/shared/schemas/transfers';
import { invoiceParamsSchema } from '@poi/shared/schemas/invoices';
import type { FastifyRequest } from 'fastify';
import { statementProposalsResponseSchema } from '@poi/shared/schemas/transfers';
import { csvDocument } from '@poi/shared/csv';
import { attachment } from '../../lib/http';
import { AppError } from '../../lib/errors';
import { assertBoundary, brokenMultipart } from '../../lib/broken-multipart';
import { requireSignIn } from '../../plugins/auth';
import { errorResponses } from '../../plugins/openapi';
import { actorOf } from '../audit/audit';
import { parseStatement, proposeMatches, STATEMENT_MAX_BYTES } from './bank-statement';
import type { TransfersService } from './transfers.service';

const NO_FILE = '入金明細のCSVファイルを選択してください';

/** The one file of a multipart upload, at most 1 MB (refused as soon as it passes). */
async function readStatementFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw new AppError('VALIDATION_ERROR', NO_FILE);
  assertBoundary(request.headers['content-type']);
  let data: Buffer | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: STATEMENT_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024 } })) {
      if (part.type === 'file') data = await part.toBuffer();
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE', '入金明細のファイルは1MB以下にしてください');
    if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') throw new AppError('VALIDATION_ERROR', '入金明細のファイルは1つだけ送ってください');
    throw brokenMultipart(err);
  }
  if (!data?.length) throw new AppError('VALIDATION_ERROR', NO_FILE);
  return data;
}

/** Administrators: expected bank transfers and their confirmation; approving corporate applications. */
export const adminTransferRoutes: FastifyPluginAsyncZod<{ transfersService: TransfersService }> = async (
  app,
  { transfersService },
) => {
  requireSignIn(app, 'admin');

  app.get(
    '/admin/transfers/pending',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '入金待ちの銀行振込(発行済・一部入金・期限超過で残額のある請求書。支払期限、請求書番号の順)',
        querystring: pendingTransfersQuerySchema,
        response: { 200: pendingTransfersResponseSchema },
      },
    },
    async (request) => ({ success: true as const, data: await transfersService.listPending(request.query) }),
  );

  app.get(
    '/admin/transfers/pending.csv',
    { schema: { tags: ['管理: 請求'], summary: '入金待ちの銀行振込のCSV(全件、UTF-8 BOM付き)', produces: ['text/csv'], response: errorResponses(401, 403) } },
    async (_request, reply) => {
      const { transfers } = await transfersService.listPending({ limit: 1_000_000, offset: 0 });
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', attachment('入金待ち一覧.csv', { ascii: 'pending-transfers.csv' }))
        .send(
          csvDocument(
            ['請求書番号', 'お客様', 'お客様(カナ)', 'お客様番号', '請求額(円)', '入金済(円)', '残額(円)', '支払期限', '超過日数', '状態'],
            transfers.map((t) => [t.invoice_number, t.customer_name, t.customer_kana, t.customer_number, t.total, t.paid, t.remaining, t.due_date, t.days_overdue, t.status]),
          ),
        );
    },
  );

  app.post(
    '/admin/transfers/statement',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '銀行の入金明細CSV(日付・金額・振込依頼人名。UTF-8 または Shift_JIS、1MBまで)から消し込み候補を提案する(記録はしない)',
        consumes: ['multipart/form-data'],
        response: { 200: statementProposalsResponseSchema, ...errorResponses(400, 401, 403, 413) },
      },
    },
    async (request) => {
      const file = await readStatementFile(request);
      const rows = parseStatement(file);
      const { transfers } = await transfersService.listPending({ limit: 1_000_000, offset: 0 });
      return { success: true as const, data: { proposals: proposeMatches(rows, transfers) } };
    },
  );

  app.post(
    '/admin/transfers/:id/confirm',
    {
      schema: {
        tags: ['管理: 請求'],
        summary: '銀行振込の入金を消し込む(過不足の扱い: ¥1,000以下の不足は振込手数料として処理可、超過分はクレジット)。領収メールを送信',
        params: invoiceParamsSchema,
        body: confirmTransferBodySchema,
        response: { 200: confirmTransferResponseSchema, ...errorResponses(409) },
      },
    },
    async (request) => ({ success: true as const, data: await transfersService.confirm(request.params.id, request.body, actorOf(request)) }),
  );
};
