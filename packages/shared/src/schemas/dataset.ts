import { z } from 'zod';
import { PRICE_MAX, PRICE_MIN } from '../limits';
import { messages } from '../messages';

export const DATASET_NAME_MAX = 255;
export const DATASET_DESCRIPTION_MAX = 2000;
export const PRICE_REASON_MAX = 500;

const isCents = (v: number) => Math.abs(Math.round(v * 100) - v * 100) < 1e-6;

/** A per-search price in yen: 0 to 1000, in steps of 0.01 (spec 5). Strings from form inputs are accepted. */
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

export const datasetListQuerySchema = z.object({
  type: z.enum(DATASET_FILTERS).default('all'),
  keyword: z.string().trim().max(100).optional(),
  /** Only the datasets the caller manages (the /datasets screen). */
  managed: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
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
  /** Whether the caller may change price, import, edit POIs and delete (ARCHITECTURE.md "Dataset managers"). */
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
