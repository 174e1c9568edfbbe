import { z } from 'zod';
import { ACCOUNT_TYPES } from '../roles';

/** One version of the platform pricing of an account type (docs/billing.md "Pricing"). */
export const pricingVersionSchema = z.object({
  id: z.number().int(),
  account_type: z.enum(ACCOUNT_TYPES),
  effective_from: z.string(),
  /** Platform fee per search in yen, added to the datasets' prices. */
  base_fee: z.number(),
  /** Searches per month (Japan time) whose base fee is waived; for trial accounts, all they may make. */
  free_searches_per_month: z.number().int(),
  monthly_fee: z.number(),
  /** Percent of a provider dataset's price paid to its provider. */
  provider_share_percent: z.number(),
  rate_limit_per_minute: z.number().int(),
  max_api_keys: z.number().int(),
});
export type PricingVersion = z.infer<typeof pricingVersionSchema>;

export const pricingListResponseSchema = z.object({ success: z.literal(true), data: z.object({ versions: z.array(pricingVersionSchema) }) });
export const pricingAtDateQuerySchema = z.object({
  account_type: z.enum(ACCOUNT_TYPES, { error: 'アカウント種別が正しくありません' }),
  date: z.preprocess(
    (v) => (v === '' || v === undefined ? new Date().toISOString() : v),
    z.string().refine((v) => !Number.isNaN(new Date(v).getTime()), '日付が正しくありません'),
  ),
});
export const pricingVersionResponseSchema = z.object({ success: z.literal(true), data: z.object({ version: pricingVersionSchema }) });

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const realDay = (v: string) => DAY.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
/** A number with at most two decimals (yen and sen, percent and basis points). */
const hundredths = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;
const bounded = (label: string, min: number, max: number, unit: string, decimals: boolean) => {
  const message = `${label}は${min}〜${max.toLocaleString('ja-JP')}${unit}の${decimals ? '数値(小数第2位まで)' : '整数'}で入力してください`;
  const base = z.number(message).min(min, message).max(max, message);
  return decimals ? base.refine(hundredths, message) : base.int(message);
};

/**
 * POST /console/v1/admin/pricing/create (and /preview, and /update/{id} without account_type): a
 * version of one account type's pricing, in force from the start (00:00 Japan time) of
 * `effective_from`, which must be tomorrow or later in Japan: prices are never retroactive.
 */
export const pricingVersionBodySchema = z.object({
  account_type: z.enum(ACCOUNT_TYPES, { error: 'アカウント種別が正しくありません' }),
  effective_from: z.string({ error: '適用開始日を入力してください' }).refine(realDay, '適用開始日は YYYY-MM-DD の形式の実在する日付で入力してください'),
  base_fee: bounded('基本料金(1検索あたり)', 0, 1000, '円', true),
  free_searches_per_month: bounded('月間無料検索数', 0, 100_000_000, '回', false),
  monthly_fee: bounded('月額料金', 0, 10_000_000, '円', true),
  provider_share_percent: bounded('提供者への分配率', 0, 100, '%', true),
  rate_limit_per_minute: bounded('レート制限', 1, 1_000_000, '回/分', false),
  max_api_keys: bounded('APIキーの上限', 1, 1000, '個', false),
  reason: z.string({ error: '理由を入力してください' }).trim().min(1, '理由を入力してください').max(500, '理由は500文字以内で入力してください'),
});
export type PricingVersionBody = z.infer<typeof pricingVersionBodySchema>;
export const updatePricingVersionBodySchema = pricingVersionBodySchema.omit({ account_type: true });
export type UpdatePricingVersionBody = z.infer<typeof updatePricingVersionBodySchema>;
export const pricingIdParamsSchema = z.object({ id: z.coerce.number('料金設定IDが正しくありません').int('料金設定IDが正しくありません').positive('料金設定IDが正しくありません') });
export const pricingDeleteBodySchema = z.object({ reason: pricingVersionBodySchema.shape.reason });

export const PRICING_FIELDS = ['base_fee', 'free_searches_per_month', 'monthly_fee', 'provider_share_percent', 'rate_limit_per_minute', 'max_api_keys'] as const;

/** What a new version changes against the one in force at its start, and whom it reaches. */
export const pricingPreviewSchema = z.object({
  account_type: z.enum(ACCOUNT_TYPES),
  effective_from: z.string(),
  /** The version it follows (in force the day before it starts); null when it is the first. */
  previous: pricingVersionSchema.nullable(),
  changes: z.array(z.object({ field: z.enum(PRICING_FIELDS), from: z.number().nullable(), to: z.number() })),
  /** Users of the account type today (active), whom the change reaches. */
  affected_users: z.number().int(),
});
export type PricingPreview = z.infer<typeof pricingPreviewSchema>;
export const pricingPreviewResponseSchema = z.object({ success: z.literal(true), data: pricingPreviewSchema });
