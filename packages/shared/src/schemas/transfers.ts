import { z } from 'zod';
import { successSchema as ok, yenSchema as yen } from './common';
import { invoiceStatusSchema, invoiceSummarySchema, paymentSchema } from './invoices';

export const pendingTransferSchema = z.object({
  invoice_id: z.string(),
  invoice_number: z.string(),
  customer_name: z.string(),
  customer_kana: z.string().nullable(),
  customer_number: z.string(),
  total: yen,
  paid: yen,
  remaining: yen,
  due_date: z.string(),
  days_overdue: z.number().int(),
  status: invoiceStatusSchema,
});

export type PendingTransfer = z.infer<typeof pendingTransferSchema>;

export const pendingTransfersResponseSchema = ok(z.object({ transfers: z.array(pendingTransferSchema), total: z.number().int() }));

export const TRANSFER_FEE_TOLERANCE_YEN = 1000;

/** POST /console/v1/admin/transfers/{invoice id}/confirm */
export const confirmTransferBodySchema = z.object({
  received_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, '入金日は YYYY-MM-DD の形式で入力してください'),
  received_amount: z.number('入金額は1円以上の整数で入力してください').int('入金額は1円以上の整数で入力してください').min(1, '入金額は1円以上の整数で入力してください').max(1_000_000_000, '入金額が大きすぎます'),
  payer_name: z.string().trim().min(1, '振込名義を入力してください').max(200, '振込名義は200文字以内で入力してください'),
  note: z.string().trim().max(1000, 'メモは1000文字以内で入力してください').nullable().optional(),
  /** A shortfall of ≤ ¥1,000: book it as the customer's transfer fee (invoice paid). */
  book_shortfall_as_fee: z.boolean().optional(),
});

export type ConfirmTransferBody = z.infer<typeof confirmTransferBodySchema>;

export const confirmTransferResultSchema = z.object({ invoice: invoiceSummarySchema, payment: paymentSchema, credit_added: yen });

export const confirmTransferResponseSchema = ok(confirmTransferResultSchema);

// ---------------------------------------------------------------- admin transfers and corporate (transfer helper)

const pageNumber = (min: number, max: number | undefined, fallback: number, message: string) =>
  z.preprocess((v) => (v === undefined || v === '' ? fallback : v), max === undefined ? z.coerce.number(message).int(message).min(min, message) : z.coerce.number(message).int(message).min(min, message).max(max, message));

/** GET /console/v1/admin/transfers/pending: paging (due date, then invoice number). */
export const pendingTransfersQuerySchema = z.object({
  limit: pageNumber(1, 100, 50, '件数は1〜100の整数で指定してください'),
  offset: pageNumber(0, undefined, 0, '開始位置は0以上の整数で指定してください'),
});

export type PendingTransfersQuery = z.infer<typeof pendingTransfersQuerySchema>;

export type PendingTransfers = { transfers: PendingTransfer[]; total: number };


// ---------------------------------------------------------------- bank statement (admin transfers)

/** One line of an uploaded bank statement and the open invoice it most likely pays (never booked by itself). */
export const statementProposalSchema = z.object({
  line: z.number().int(),
  date: z.string(),
  amount: z.number().int(),
  payer_name: z.string(),
  /** The お客様番号 found before the payer name (valid check digit), or null. */
  customer_number: z.string().nullable(),
  /** exact: number and amount; customer_number: number, another amount; amount: only the amount (one invoice); none. */
  match: z.enum(['exact', 'customer_number', 'amount', 'none']),
  invoice: pendingTransferSchema.nullable(),
  /** amount − the invoice's remaining balance (negative: short). */
  difference: z.number().int().nullable(),
  reason: z.string(),
});

export type StatementProposal = z.infer<typeof statementProposalSchema>;

export const statementProposalsResponseSchema = z.object({ success: z.literal(true), data: z.object({ proposals: z.array(statementProposalSchema) }) });

export type StatementProposals = z.infer<typeof statementProposalsResponseSchema>['data'];
