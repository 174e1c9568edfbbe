import { z } from 'zod';

/*
 * The billing calls' contract (issue 13, BILLING.md), shared by the server's routes and the
 * console. Invoice amounts are whole yen (integers); unit prices are yen with 2 decimals.
 * Dates are 'YYYY-MM-DD' (Japan time), instants ISO 8601.
 */

const yen = z.number().int().describe('円(整数)');
const unitPrice = z.number().describe('円(小数第2位まで)');
const ok = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const paymentMethodSchema = z.enum(['card', 'bank_transfer']);
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;
export const invoiceStatusSchema = z.enum(['draft', 'issued', 'paid', 'partially_paid', 'overdue', 'void', 'uncollectible']);
export type InvoiceStatus = z.infer<typeof invoiceStatusSchema>;

export const cardSchema = z.object({ brand: z.string(), last4: z.string(), exp_month: z.number().int(), exp_year: z.number().int() });
export type Card = z.infer<typeof cardSchema>;

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

const emailList = z
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
  /** total − credit applied − paid, never below 0. */
  remaining: yen,
  payment_method: paymentMethodSchema,
  /** The addressee on the invoice (counterparty), as snapshotted at issue. */
  addressee: z.string(),
});
export type InvoiceSummary = z.infer<typeof invoiceSummarySchema>;

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

// ---------------------------------------------------------------- budget

export const BUDGET_ALERT_THRESHOLDS = [50, 80, 100] as const;

export const budgetSchema = z.object({
  monthly_limit: yen.nullable(),
  hard_stop: z.boolean(),
  /** This month's cost so far (tax included, as the invoice will show it). */
  spent_this_month: yen,
  alerts_sent: z.array(z.number().int()),
});
export type Budget = z.infer<typeof budgetSchema>;
export const budgetResponseSchema = ok(budgetSchema);

/** POST /console/v1/billing/budget: null limit removes the budget. */
export const budgetBodySchema = z.object({
  monthly_limit: z
    .number('予算は1〜100,000,000円の整数で入力してください')
    .int('予算は1〜100,000,000円の整数で入力してください')
    .min(1, '予算は1〜100,000,000円の整数で入力してください')
    .max(100_000_000, '予算は1〜100,000,000円の整数で入力してください')
    .nullable(),
  hard_stop: z.boolean(),
});

// ---------------------------------------------------------------- card (Stripe Checkout in setup mode)

export const checkoutPurposeSchema = z.enum(['card', 'upgrade_individual', 'corporate']);
export type CheckoutPurpose = z.infer<typeof checkoutPurposeSchema>;

/** POST /console/v1/payment-method/checkout → redirect the browser to `url`. */
export const checkoutBodySchema = z.object({ purpose: checkoutPurposeSchema });
export const checkoutResponseSchema = ok(z.object({ url: z.string() }));

/** POST /console/v1/payment-method/complete: verifies the session and saves the card; safe to repeat. */
export const completeBodySchema = z.object({ session_id: z.string().trim().min(1, 'セッションIDが指定されていません').max(255) });
export const completeResultSchema = z.object({
  card: cardSchema,
  purpose: checkoutPurposeSchema,
  account_type: z.string(),
  /** Where the console goes next: '/billing' or '/upgrade'. */
  next: z.string(),
});
export type CompleteResult = z.infer<typeof completeResultSchema>;
export const completeResponseSchema = ok(completeResultSchema);

// ---------------------------------------------------------------- upgrade and corporate application

export const planSchema = z.object({
  account_type: z.enum(['trial', 'individual', 'corporate']),
  base_fee: unitPrice,
  free_searches_per_month: z.number().int(),
  monthly_fee: yen,
  rate_limit_per_minute: z.number().int(),
  max_api_keys: z.number().int(),
  effective_from: z.string(),
});
export type Plan = z.infer<typeof planSchema>;

export const corporateApplicationBodySchema = z.object({
  company_name: z.string().trim().min(1, '会社名を入力してください').max(200, '会社名は200文字以内で入力してください'),
  company_name_kana: z
    .string()
    .trim()
    .min(1, '会社名(カナ)を入力してください')
    .max(200, '会社名(カナ)は200文字以内で入力してください')
    .regex(/^[\u30A0-\u30FF\u3000 ・ー（）()0-9０-９A-Za-zＡ-Ｚａ-ｚ]+$/, '会社名(カナ)はカタカナで入力してください'),
  department: z.string().trim().max(200, '部署名は200文字以内で入力してください').nullable(),
  postal_code: z.string().trim().regex(/^\d{3}-?\d{4}$/, '郵便番号は 123-4567 の形式で入力してください'),
  address: z.string().trim().min(1, '住所を入力してください').max(500, '住所は500文字以内で入力してください'),
  phone: z.string().trim().regex(/^[0-9+\-() ]{10,20}$/, '電話番号は数字とハイフンで入力してください'),
  billing_contact_name: z.string().trim().min(1, '請求担当者名を入力してください').max(100, '請求担当者名は100文字以内で入力してください'),
  billing_emails: emailList,
  corporate_number: z.string().trim().regex(/^\d{13}$/, '法人番号は13桁の数字で入力してください').nullable(),
  registration_number: z.string().trim().regex(/^T[1-9]\d{12}$/, '登録番号は T と13桁の数字で入力してください').nullable(),
  payment_method: paymentMethodSchema,
});
export type CorporateApplicationBody = z.infer<typeof corporateApplicationBodySchema>;

export const corporateApplicationSchema = corporateApplicationBodySchema.extend({
  id: z.string(),
  status: z.enum(['pending', 'active', 'suspended', 'rejected']),
  /** Card applications wait for the card; invoice applications for an administrator. */
  waiting_for: z.enum(['card', 'approval']).nullable(),
  status_reason: z.string().nullable(),
  created_at: z.string(),
});
export type CorporateApplication = z.infer<typeof corporateApplicationSchema>;
export const corporateApplicationResponseSchema = ok(corporateApplicationSchema);

/** GET /console/v1/upgrade: the plans in force and the caller's state. */
export const upgradeViewSchema = z.object({
  account_type: z.string(),
  plans: z.array(planSchema),
  application: corporateApplicationSchema.nullable(),
  card_payments_available: z.boolean(),
});
export type UpgradeView = z.infer<typeof upgradeViewSchema>;
export const upgradeViewResponseSchema = ok(upgradeViewSchema);

// ---------------------------------------------------------------- /commerce

/** GET /console/v1/commerce (public): the legal notice's configured items. */
export const commerceSchema = z.object({
  /** Every required ISSUER_* item is configured. */
  complete: z.boolean(),
  missing: z.array(z.string()),
  seller: z.string().nullable(),
  representative: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  phone_hours: z.string().nullable(),
  email: z.string().nullable(),
  registration_number: z.string().nullable(),
  bank_account: z.string().nullable(),
});
export type Commerce = z.infer<typeof commerceSchema>;
export const commerceResponseSchema = ok(commerceSchema);

// ---------------------------------------------------------------- admin: close, transfers, corporate approval

export const closeBodySchema = z.object({
  year_month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, '年月は YYYY-MM の形式で指定してください'),
});
export const closeResultSchema = z.object({ year_month: z.string(), issued: z.number().int(), skipped: z.number().int() });
export const closeResponseSchema = ok(closeResultSchema);

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

/** POST /console/v1/admin/corporate/{id}/activate: approves a pending application or reactivates. */
export const activateCorporateBodySchema = z.object({
  credit_limit: z.number().int().min(0, '与信限度額は0以上の整数で入力してください').max(1_000_000_000).nullable().optional(),
  payment_terms: z.string().trim().max(100).optional(),
  reason: z.string().trim().max(500, '理由は500文字以内で入力してください').optional(),
});

// ---------------------------------------------------------------- ids in paths (close helper)

/** `:id` of GET /billing/invoices/:id (and its PDF): a malformed id is a Japanese 400. */
export const invoiceParamsSchema = z.object({ id: z.uuid({ error: '請求書IDの形式が正しくありません' }) });
/** GET /billing/invoices.csv: the list's filters without paging (every matching row). */
export const invoiceCsvQuerySchema = invoiceListQuerySchema.pick({ issued_from: true, issued_to: true, amount_min: true, amount_max: true });
/** `:id` of GET /billing/payments/:id/receipt.pdf. */
export const paymentParamsSchema = z.object({ id: z.uuid({ error: '支払IDの形式が正しくありません' }) });

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

/** `:id` of POST /admin/corporate/:id/activate. */
export const corporateParamsSchema = z.object({ id: z.uuid({ error: '法人アカウントIDの形式が正しくありません' }) });
export type ActivateCorporateBody = z.infer<typeof activateCorporateBodySchema>;
