import { z } from 'zod';
import { PRICE_MAX, PRICE_MIN } from '../limits';
import { messages } from '../messages';

export const DATASET_NAME_MAX = 255;
export const DATASET_DESCRIPTION_MAX = 2000;
export const PRICE_REASON_MAX = 500;

const isCents = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;

/** A per-search price in yen: 0 to 1000, in steps of 0.01. Strings from form inputs are accepted. */
export const priceSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v === '' ? undefined : v),
  z
    .number({ error: messages.priceRequired })
    .refine(Number.isFinite, messages.priceRequired)
    .min(PRICE_MIN, messages.priceRange)
    .max(PRICE_MAX, messages.priceRange)
    .refine(isCents, messages.priceStep),
);

export const datasetIdSchema = z.uuid({ error: messages.datasetIdInvalid });

const descriptionSchema = z
  .string()
  .trim()
  .max(DATASET_DESCRIPTION_MAX, messages.datasetDescriptionTooLong)
  .optional()
  .nullable()
  .transform((v) => (v ? v : null));

export const createDatasetBodySchema = z.object({
  name: z
    .string({ error: messages.datasetNameRequired })
    .trim()
    .min(1, messages.datasetNameRequired)
    .max(DATASET_NAME_MAX, messages.datasetNameTooLong),
  description: descriptionSchema,
  price_per_search: priceSchema,
});
export type CreateDatasetBody = z.input<typeof createDatasetBodySchema>;

const optionalUserId = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z.uuid({ error: 'ユーザーIDが正しくありません' }).optional(),
);

export const assignDatasetBodySchema = createDatasetBodySchema.extend({
  assigned_user_id: optionalUserId,
  provider_user_id: optionalUserId,
});
export type AssignDatasetBody = z.input<typeof assignDatasetBodySchema>;

export const priceChangeBodySchema = z.object({
  new_price: priceSchema,
  reason: z
    .string()
    .trim()
    .max(PRICE_REASON_MAX, messages.priceReasonTooLong)
    .optional()
    .nullable()
    .transform((v) => (v ? v : null)),
});
export type PriceChangeBody = z.input<typeof priceChangeBodySchema>;

export const DATASET_FILTERS = ['all', 'paid', 'free', 'platform', 'provider'] as const;
export type DatasetFilter = (typeof DATASET_FILTERS)[number];

/** Orders of the dataset lists; each ends with dataset_id, so pages never overlap or skip. */
export const DATASET_SORTS = ['newest', 'name', 'price_asc', 'price_desc'] as const;
export type DatasetSort = (typeof DATASET_SORTS)[number];
export const DATASET_LIST_MAX_LIMIT = 100;
export const DATASET_LIST_DEFAULT_LIMIT = 50;
export const DATASET_KEYWORD_MAX = 100;
export const DATASET_LIST_MAX_OFFSET = 1_000_000;

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
/** An integer query parameter; blank means the default, anything else not an integer in range is refused. */
const integerParam = (min: number, max: number, fallback: number, message: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : blankToUndefined(v)),
    z.number({ error: message }).int(message).min(min, message).max(max, message).default(fallback),
  );

export const datasetListQuerySchema = z.object({
  type: z
    .preprocess(blankToUndefined, z.enum(DATASET_FILTERS, { error: '絞り込み(type)は all・paid・free・platform・provider のいずれかで指定してください' }).default('all'))
    .describe('絞り込み: all(すべて)・paid(有料)・free(無料)・platform(プラットフォーム提供)・provider(プロバイダー提供)'),
  keyword: z
    .preprocess(
      blankToUndefined,
      z.string().trim().max(DATASET_KEYWORD_MAX, `キーワードは${DATASET_KEYWORD_MAX}文字以内で入力してください`).optional(),
    )
    .describe('名称・説明に含まれる文字列(空白区切りはすべてを含むもの。全角・半角、大文字・小文字を区別しません)'),
  sort: z
    .preprocess(blankToUndefined, z.enum(DATASET_SORTS, { error: '並び順(sort)は newest・name・price_asc・price_desc のいずれかで指定してください' }).default('newest'))
    .describe('並び順: newest(新しい順)・name(名前順)・price_asc(価格の安い順)・price_desc(価格の高い順)'),
  /** Only the datasets the caller manages (the /datasets screen). */
  managed: z
    .enum(['true', 'false'], { error: 'managed は true または false で指定してください' })
    .optional()
    .transform((v) => v === 'true'),
  limit: integerParam(1, DATASET_LIST_MAX_LIMIT, DATASET_LIST_DEFAULT_LIMIT, `件数(limit)は1から${DATASET_LIST_MAX_LIMIT}までの整数で指定してください`).describe('1ページの件数(1〜100)'),
  offset: integerParam(0, DATASET_LIST_MAX_OFFSET, 0, `開始位置(offset)は0から${DATASET_LIST_MAX_OFFSET}までの整数で指定してください`).describe('読み飛ばす件数(ページ送り)'),
});
export type DatasetListQuery = z.input<typeof datasetListQuerySchema>;

/** The spec's Dataset entity as lists show it. */
export const datasetSchema = z.object({
  dataset_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  price_per_search: z.number(),
  is_platform_dataset: z.boolean(),
  created_at: z.string(),
  poi_count: z.number().int(),
  /** Whether the caller may change price, import, edit POIs and delete (docs/architecture.md "Dataset managers"). */
  can_manage: z.boolean(),
});
export type Dataset = z.infer<typeof datasetSchema>;

export const pricingHistoryEntrySchema = z.object({
  price: z.number(),
  effective_from: z.string(),
  effective_until: z.string().nullable(),
  reason: z.string().nullable(),
});
export type PricingHistoryEntry = z.infer<typeof pricingHistoryEntrySchema>;

export const datasetDetailSchema = datasetSchema.extend({
  pricing_history: z.array(pricingHistoryEntrySchema),
  stripe_product_id: z.string().nullable(),
  stripe_meter_id: z.string().nullable(),
  assigned_user_id: z.string().nullable(),
  provider_user_id: z.string().nullable(),
});
export type DatasetDetail = z.infer<typeof datasetDetailSchema>;

export const datasetListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ datasets: z.array(datasetSchema), total: z.number().int() }),
});
export type DatasetListResponse = z.infer<typeof datasetListResponseSchema>;

export const datasetDetailResponseSchema = z.object({ success: z.literal(true), data: datasetDetailSchema });
export type DatasetDetailResponse = z.infer<typeof datasetDetailResponseSchema>;

export const datasetCreatedResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  data: datasetSchema,
});

export const datasetParamsSchema = z.object({ id: datasetIdSchema });
