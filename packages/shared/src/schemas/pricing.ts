import { z } from 'zod';
import { ACCOUNT_TYPES } from '../roles';

/** One version of the platform pricing of an account type (ARCHITECTURE.md "Money"). */
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
