import { z } from 'zod';
import { successSchema as ok, unitPriceSchema as unitPrice, yenSchema as yen } from './common';
import { cardSchema } from './payments';

/*
 * The invoices' contract (billing account, this month's charges, invoices, payments, the monthly
 * close), shared by the server's routes and the console. Invoice amounts are whole yen (integers); unit prices are yen with 2 decimals.
 * Dates are 'YYYY-MM-DD' (Japan time), instants ISO 8601.
 */

export const paymentMethodSchema = z.enum(['card', 'bank_transfer']);

export type PaymentMethod = z.infer<typeof paymentMethodSchema>;

export const invoiceStatusSchema = z.enum(['draft', 'issued', 'paid', 'partially_paid', 'overdue', 'void', 'uncollectible']);

export type InvoiceStatus = z.infer<typeof invoiceStatusSchema>;

/** Where a bank transfer goes (config BANK_*), with the お客様番号 to type before the payer name. */
export const bankTransferInstructionsSchema = z.object({
  bank_name: z.string(),
  branch_name: z.string(),
  account_type: z.string(),
  account_number: z.string(),
  account_holder: z.string(),
  customer_number: z.string(),
  /** 「振込手数料はお客様ご負担」 and the like, ready to show. */
  notes: z.array(z.string()),
});

export type BankTransferInstructions = z.infer<typeof bankTransferInstructionsSchema>;

// ---------------------------------------------------------------- billing account

export const billingAccountSchema = z.object({
  id: z.string(),
  kind: z.enum(['individual', 'corporate']),
  customer_number: z.string(),
  addressee: z.string(),
  honorific: z.enum(['様', '御中']),
  postal_code: z.string().nullable(),
  address: z.string().nullable(),
  billing_emails: z.array(z.string()),
  payment_method: paymentMethodSchema,
  card: cardSchema.nullable(),
  credit: yen,
  bank_transfer: bankTransferInstructionsSchema.nullable(),
});

export type BillingAccount = z.infer<typeof billingAccountSchema>;

/** GET /console/v1/billing/account: null account for a trial user who never upgraded. */
export const billingAccountViewSchema = z.object({
  account_type: z.string(),
  account: billingAccountSchema.nullable(),
  /** false when STRIPE_SECRET_KEY is unset: card actions then answer a Japanese message. */
  card_payments_available: z.boolean(),
  /** An invoice is issued and not settled: the card cannot be removed. */
  has_open_invoice: z.boolean(),
});

export type BillingAccountView = z.infer<typeof billingAccountViewSchema>;

export const billingAccountViewResponseSchema = ok(billingAccountViewSchema);

/** Where invoices are mailed: 1 to 5 addresses. */
export const emailList = z
  .array(z.email('メールアドレスの形式が正しくありません').max(254))
  .min(1, '請求書送付先メールアドレスを1件以上入力してください')
  .max(5, '請求書送付先メールアドレスは5件までです');

/** POST /console/v1/billing/account: billing details, for future invoices only. */
export const billingDetailsBodySchema = z.object({
  addressee: z.string().trim().min(1, '宛名を入力してください').max(200, '宛名は200文字以内で入力してください'),
  honorific: z.enum(['様', '御中'], '敬称は「様」または「御中」を選んでください'),
  postal_code: z
    .string()
    .trim()
    .regex(/^\d{3}-?\d{4}$/, '郵便番号は 123-4567 の形式で入力してください')
    .nullable(),
  address: z.string().trim().max(500, '住所は500文字以内で入力してください').nullable(),
  billing_emails: emailList,
});

export type BillingDetailsBody = z.infer<typeof billingDetailsBodySchema>;

// ---------------------------------------------------------------- this month so far

export const currentChargesSchema = z.object({
  year_month: z.string(),
  datasets: z.array(z.object({ dataset_id: z.string(), dataset_name: z.string(), searches: z.number().int(), unit_price: unitPrice, amount: yen })),
  base_fee: z.object({ searches: z.number().int(), unit_price: unitPrice, amount: yen }),
  monthly_fee: yen,
  free_searches: z.object({ limit: z.number().int(), used: z.number().int(), remaining: z.number().int() }),
  subtotal: yen,
  /** ⌊subtotal × 10 / 100⌋, as the invoice will compute it. */
  tax_estimate: yen,
  total_estimate: yen,
  /** Earlier months' card amounts under ¥50, carried onto this month's invoice (already in subtotal). */
  carry_over: yen.optional(),
  as_of: z.string(),
});

export type CurrentCharges = z.infer<typeof currentChargesSchema>;

export const currentChargesResponseSchema = ok(currentChargesSchema);

// ---------------------------------------------------------------- invoices

export const invoiceSummarySchema = z.object({
  id: z.string(),
  number: z.string().nullable(),
  year_month: z.string(),
  status: invoiceStatusSchema,
  period_start: z.string(),
  period_end: z.string(),
  issue_date: z.string().nullable(),
  due_date: z.string().nullable(),
  subtotal: yen,
  tax: yen,
  total: yen,
  credit_applied: yen,
  paid: yen,
  /** Σ of the invoice's credit notes (適格返還請求書). */
  credited: yen,
  /** total − credit applied − paid − credited, never below 0. */
  remaining: yen,
  payment_method: paymentMethodSchema,
  /** The addressee on the invoice (counterparty), as snapshotted at issue. */
  addressee: z.string(),
  /** Card invoices: why the last charge failed (cleared once paid); the list shows it. */
  last_payment_error: z.string().nullable(),
});

export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

/** A credit note (適格返還請求書) against an invoice; amount = subtotal + tax (10 %). */
export const creditNoteSchema = z.object({
  id: z.string(),
  number: z.string(),
  invoice_id: z.string(),
  issue_date: z.string(),
  /** Tax included. */
  amount: yen,
  subtotal: yen,
  tax: yen,
  tax_rate_percent: z.number().int(),
  /** The part that reduced what was owed on the invoice; the rest became the account's credit. */
  applied_to_invoice: yen,
  credited_to_account: yen,
  description: z.string(),
  reason: z.string(),
  /** GET path of its PDF under /console/v1. */
  pdf_path: z.string(),
});

export type CreditNote = z.infer<typeof creditNoteSchema>;

export const invoiceLineSchema = z.object({
  kind: z.enum(['dataset', 'base_fee', 'monthly_fee', 'carry_over']),
  dataset_id: z.string().nullable(),
  description: z.string(),
  quantity: z.number().int(),
  unit_price: unitPrice,
  amount: yen,
  tax_rate_percent: z.number().int(),
});

export const paymentSchema = z.object({
  id: z.string(),
  method: z.enum(['card', 'bank_transfer', 'credit']),
  amount: yen,
  fee: yen,
  received_on: z.string(),
  payer_name: z.string().nullable(),
  receipt_number: z.string(),
});

export type Payment = z.infer<typeof paymentSchema>;

export const invoiceDetailSchema = invoiceSummarySchema.extend({
  lines: z.array(invoiceLineSchema),
  payments: z.array(paymentSchema),
  issuer: z.object({ name: z.string(), registration_number: z.string().nullable(), address: z.string().nullable() }),
  recipient: z.object({ addressee: z.string(), honorific: z.string(), customer_number: z.string(), postal_code: z.string().nullable(), address: z.string().nullable() }),
  /** Present for bank-transfer invoices. */
  bank_transfer: bankTransferInstructionsSchema.nullable(),
  /** A card payment needs the customer (3-D Secure): open this link to pay. */
  pay_now_url: z.string().nullable(),
  last_payment_error: z.string().nullable(),
  /** Set when the invoice was voided (無効) / written off (貸倒れ). */
  void_reason: z.string().nullable(),
  voided_at: z.string().nullable(),
  write_off_reason: z.string().nullable(),
  written_off_at: z.string().nullable(),
  credit_notes: z.array(creditNoteSchema),
});

export type InvoiceDetail = z.infer<typeof invoiceDetailSchema>;

export const invoiceDetailResponseSchema = ok(invoiceDetailSchema);

const optionalDate = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/, '日付は YYYY-MM-DD の形式で指定してください').optional(),
);

const optionalAmount = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.coerce.number('金額は0以上の整数で指定してください').int('金額は0以上の整数で指定してください').min(0, '金額は0以上の整数で指定してください').optional(),
);

/** GET /console/v1/billing/invoices (and .csv): filters combine. */
export const invoiceListQuerySchema = z.object({
  issued_from: optionalDate,
  issued_to: optionalDate,
  amount_min: optionalAmount,
  amount_max: optionalAmount,
  limit: z.preprocess((v) => (v === undefined ? 20 : v), z.coerce.number('件数は1〜100の整数で指定してください').int('件数は1〜100の整数で指定してください').min(1, '件数は1〜100の整数で指定してください').max(100, '件数は1〜100の整数で指定してください')),
  offset: z.preprocess((v) => (v === undefined ? 0 : v), z.coerce.number('開始位置は0以上の整数で指定してください').int('開始位置は0以上の整数で指定してください').min(0, '開始位置は0以上の整数で指定してください')),
});

export type InvoiceListQuery = z.infer<typeof invoiceListQuerySchema>;

export const invoiceListSchema = z.object({ invoices: z.array(invoiceSummarySchema), total: z.number().int() });

export type InvoiceList = z.infer<typeof invoiceListSchema>;

export const invoiceListResponseSchema = ok(invoiceListSchema);

// ---------------------------------------------------------------- admin: close, transfers, corporate approval

export const closeBodySchema = z.object({
  year_month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, '年月は YYYY-MM の形式で指定してください'),
});

export const closeResultSchema = z.object({ year_month: z.string(), issued: z.number().int(), skipped: z.number().int() });

export const closeResponseSchema = ok(closeResultSchema);

// ---------------------------------------------------------------- ids in paths (close helper)

/** `:id` of GET /billing/invoices/:id (and its PDF): a malformed id is a Japanese 400. */
export const invoiceParamsSchema = z.object({ id: z.uuid({ error: '請求書IDの形式が正しくありません' }) });

/** GET /billing/invoices.csv: the list's filters without paging (every matching row). */
export const invoiceCsvQuerySchema = invoiceListQuerySchema.pick({ issued_from: true, issued_to: true, amount_min: true, amount_max: true });

/** `:id` of GET /billing/payments/:id/receipt.pdf. */
export const paymentParamsSchema = z.object({ id: z.uuid({ error: '支払IDの形式が正しくありません' }) });

/** `:id` of GET /billing/credit-notes/:id/pdf. */
export const creditNoteParamsSchema = z.object({ id: z.uuid({ error: '返還請求書IDの形式が正しくありません' }) });

// ---------------------------------------------------------------- admin: void, credit notes, write-off

const ADJUSTMENT_REASON_MAX = 500;
/** The most one credit note may return (tax included); the invoice's own total caps it first. */
const CREDIT_NOTE_AMOUNT_MAX = 100_000_000_000;

const adjustmentReason = z
  .string({ error: '理由を入力してください' })
  .trim()
  .min(1, '理由を入力してください')
  .max(ADJUSTMENT_REASON_MAX, `理由は${ADJUSTMENT_REASON_MAX}文字以内で入力してください`);

/** POST /admin/invoices/:id/void and /write-off. */
export const invoiceReasonBodySchema = z.object({ reason: adjustmentReason });

const amountMessage = '返還額は1円以上の整数(税込)で入力してください';

/** POST /admin/invoices/:id/credit-notes: the amount returned, tax included, whole yen. */
export const creditNoteBodySchema = z.object({
  amount_yen: z
    .number({ error: amountMessage })
    .int(amountMessage)
    .min(1, amountMessage)
    .max(CREDIT_NOTE_AMOUNT_MAX, '返還額が大きすぎます'),
  reason: adjustmentReason,
  /** What is returned, as printed (default: the invoice's service and period). */
  description: z.string().trim().max(200, '内容は200文字以内で入力してください').optional(),
  /**
   * An id the client makes once per submission (UUID): sending the same request again (a retry
   * after a lost answer, a double submit) answers the credit note it already issued, once.
   */
  request_id: z.uuid({ error: 'request_id は UUID で指定してください' }).optional(),
});

export type CreditNoteBody = z.infer<typeof creditNoteBodySchema>;

export const invoiceAdjustmentResultSchema = z.object({
  invoice: invoiceSummarySchema,
  /** The credit note issued (credit-notes only). */
  credit_note: creditNoteSchema.nullable(),
  /** Account credit given back (void) or added (a credit note's excess). */
  credit_to_account: yen,
});

export type InvoiceAdjustmentResult = z.infer<typeof invoiceAdjustmentResultSchema>;

export const invoiceAdjustmentResponseSchema = ok(invoiceAdjustmentResultSchema);
