import { z } from 'zod';
import { successSchema as ok, unitPriceSchema as unitPrice, yenSchema as yen } from './common';
import { emailList, invoiceStatusSchema, paymentMethodSchema } from './invoices';
import { auditEntrySchema, listLimitSchema, listOffsetSchema } from './users';

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

/** POST /console/v1/admin/corporate/{id}/activate: approves a pending application or reactivates. */
export const activateCorporateBodySchema = z.object({
  credit_limit: z.number().int().min(0, '与信限度額は0以上の整数で入力してください').max(1_000_000_000).nullable().optional(),
  payment_terms: z.string().trim().max(100).optional(),
  reason: z.string().trim().max(500, '理由は500文字以内で入力してください').optional(),
});

/** `:id` of POST /admin/corporate/:id/activate. */
export const corporateParamsSchema = z.object({ id: z.uuid({ error: '法人アカウントIDの形式が正しくありません' }) });

export type ActivateCorporateBody = z.infer<typeof activateCorporateBodySchema>;

/*
 * Admin calls on corporate accounts (the console specification's "Admin: Corporate", docs/billing.md "Administration"):
 * list, detail, create, update, suspend, activate, reject, members.
 */

const reason = z.string({ error: '理由を入力してください' }).trim().min(1, '理由を入力してください').max(500, '理由は500文字以内で入力してください');
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

export const CORPORATE_STATUSES = ['pending', 'active', 'suspended', 'rejected'] as const;

export const corporateStatusSchema = z.enum(CORPORATE_STATUSES, { error: '状態は pending、active、suspended、rejected のいずれかで指定してください' });

export const CORPORATE_ROLES = ['owner', 'billing', 'member'] as const;

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
    z.object({
      id: z.string(),
      number: z.string().nullable(),
      year_month: z.string(),
      status: invoiceStatusSchema,
      total: z.number().int(),
      paid: z.number().int(),
      /** Σ of its credit notes (適格返還請求書). */
      credited: z.number().int(),
      due_date: z.string().nullable(),
    }),
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
