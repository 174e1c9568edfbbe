import { z } from 'zod';
import { corporateApplicationBodySchema, corporateApplicationSchema, invoiceStatusSchema, paymentMethodSchema, pendingTransferSchema } from './billing';
import { auditEntrySchema, listLimitSchema, listOffsetSchema } from './user';

/*
 * Admin calls on corporate accounts (spec 7 "Admin: Corporate", BILLING.md "Administration"):
 * list, detail, create, update, suspend, activate (in billing.ts), reject, members.
 */

const ok = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

export const CORPORATE_STATUSES = ['pending', 'active', 'suspended', 'rejected'] as const;
export const corporateStatusSchema = z.enum(CORPORATE_STATUSES, { error: '状態は pending、active、suspended、rejected のいずれかで指定してください' });
export const CORPORATE_ROLES = ['owner', 'billing', 'member'] as const;

const reason = z.string({ error: '理由を入力してください' }).trim().min(1, '理由を入力してください').max(500, '理由は500文字以内で入力してください');
const creditLimit = z
  .number('与信限度額は0以上の整数(円)で入力してください')
  .int('与信限度額は0以上の整数(円)で入力してください')
  .min(0, '与信限度額は0以上の整数(円)で入力してください')
  .max(1_000_000_000, '与信限度額が大きすぎます')
  .nullable();
const paymentTerms = z.string().trim().min(1, '支払条件を入力してください').max(100, '支払条件は100文字以内で入力してください');

/** GET /console/v1/admin/corporate: newest first; `q` finds company name, kana or お客様番号. */
export const corporateListQuerySchema = z.object({
  status: z.preprocess(emptyAsUndefined, corporateStatusSchema.optional()),
  q: z.preprocess(emptyAsUndefined, z.string().trim().max(100, '検索語は100文字以内で入力してください').optional()),
  limit: listLimitSchema,
  offset: listOffsetSchema,
});
export type CorporateListQuery = z.input<typeof corporateListQuerySchema>;
export type CorporateListFilter = z.output<typeof corporateListQuerySchema>;

export const corporateSummarySchema = z.object({
  id: z.string(),
  status: z.enum(CORPORATE_STATUSES),
  company_name: z.string(),
  company_name_kana: z.string(),
  payment_method: paymentMethodSchema,
  /** お客様番号 of its billing account (null until approved). */
  customer_number: z.string().nullable(),
  credit_limit: z.number().int().nullable(),
  payment_terms: z.string(),
  member_count: z.number().int(),
  status_reason: z.string().nullable(),
  created_at: z.string(),
});
export type CorporateSummary = z.infer<typeof corporateSummarySchema>;
export const corporateListResponseSchema = ok(z.object({ accounts: z.array(corporateSummarySchema), total: z.number().int() }));
export type CorporateList = z.infer<typeof corporateListResponseSchema>['data'];

export const corporateMemberSchema = z.object({
  id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
  corporate_role: z.enum(CORPORATE_ROLES),
  status: z.enum(['active', 'suspended']),
});
export type CorporateMember = z.infer<typeof corporateMemberSchema>;

export const corporateDetailSchema = z.object({
  account: corporateApplicationSchema.extend({
    credit_limit: z.number().int().nullable(),
    payment_terms: z.string(),
    customer_number: z.string().nullable(),
    applied_by: z.string().nullable(),
    decided_at: z.string().nullable(),
  }),
  members: z.array(corporateMemberSchema),
  invoices: z.array(
    z.object({ id: z.string(), number: z.string().nullable(), year_month: z.string(), status: invoiceStatusSchema, total: z.number().int(), paid: z.number().int(), due_date: z.string().nullable() }),
  ),
  audit: z.array(auditEntrySchema),
});
export type CorporateDetail = z.infer<typeof corporateDetailSchema>;
export const corporateDetailResponseSchema = ok(corporateDetailSchema);

/** POST /console/v1/admin/corporate/create: an active account made by an administrator, with its owner. */
export const createCorporateBodySchema = corporateApplicationBodySchema.extend({
  owner_user_id: z.uuid({ error: 'オーナーのユーザーIDが正しくありません' }),
  credit_limit: creditLimit.optional(),
  payment_terms: paymentTerms.optional(),
  reason,
});
export type CreateCorporateBody = z.infer<typeof createCorporateBodySchema>;

/** POST /console/v1/admin/corporate/{id}/update: company and billing data (future invoices only). */
export const updateCorporateBodySchema = corporateApplicationBodySchema
  .omit({ payment_method: true })
  .partial()
  .extend({
    payment_method: paymentMethodSchema.optional(),
    credit_limit: creditLimit.optional(),
    payment_terms: paymentTerms.optional(),
    reason,
  });
export type UpdateCorporateBody = z.infer<typeof updateCorporateBodySchema>;

export const corporateReasonBodySchema = z.object({ reason });
export type CorporateReasonBody = z.infer<typeof corporateReasonBodySchema>;

export const addCorporateMemberBodySchema = z.object({
  user_id: z.uuid({ error: 'ユーザーIDが正しくありません' }),
  role: z.enum(CORPORATE_ROLES, { error: '役割は owner、billing、member のいずれかで指定してください' }),
  reason,
});
export type AddCorporateMemberBody = z.infer<typeof addCorporateMemberBodySchema>;
export const corporateMemberParamsSchema = z.object({
  id: z.uuid({ error: '法人アカウントIDの形式が正しくありません' }),
  userId: z.uuid({ error: 'ユーザーIDが正しくありません' }),
});

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
