import { z } from 'zod';
import { LATITUDE_MAX, LONGITUDE_MAX, POI_FIELD_MAX, POI_SEARCH_DEFAULT_LIMIT, POI_SEARCH_MAX_LIMIT } from '../limits';
import { messages } from '../messages';
import { datasetIdSchema } from './dataset';

export const POI_TAGS_MAX = 50;
export const POI_TAG_MAX = 50;

/** Empty strings and null mean "not given" (spec 5: empty fields are left out of the payload). */
const blankToUndefined = (v: unknown) => (v === '' || v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

const optionalText = (max: number, label: string) =>
  z.preprocess(blankToUndefined, z.string().trim().max(max, `${label}は${max}文字以内で入力してください`).optional());

const optionalUrl = (label: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .max(POI_FIELD_MAX.website, `${label}は${POI_FIELD_MAX.website}文字以内で入力してください`)
      .refine((v) => {
        try {
          const u = new URL(v);
          return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
        } catch {
          return false;
        }
      }, `${label}は http:// または https:// で始まるURLを入力してください`)
      .optional(),
  );

const coordinate = (label: string, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v === '' ? undefined : v),
    z
      .number({ error: `${label}を入力してください` })
      .refine(Number.isFinite, `${label}を入力してください`)
      .min(-max, `${label}は-${max}から${max}の範囲で入力してください`)
      .max(max, `${label}は-${max}から${max}の範囲で入力してください`),
  );

/** Tags: a list, or a comma-separated string; trimmed, empty entries dropped, duplicates removed. */
export const tagsSchema = z.preprocess(
  (v) => {
    if (v === null || v === undefined || v === '') return undefined;
    const list = typeof v === 'string' ? v.split(/[,、]/) : v;
    if (!Array.isArray(list)) return list;
    const cleaned = list.map((t) => (typeof t === 'string' ? t.trim() : t)).filter((t) => t !== '');
    return cleaned.length ? [...new Set(cleaned)] : undefined;
  },
  z
    .array(z.string().max(POI_TAG_MAX, `タグは1つ${POI_TAG_MAX}文字以内で入力してください`), { error: 'タグは文字列のリストで指定してください' })
    .max(POI_TAGS_MAX, `タグは${POI_TAGS_MAX}個以内で指定してください`)
    .optional(),
);

/** The POI entity's fields with their bounds (spec 3), shared by the create form, the API and import. */
export const poiFieldsSchema = z.object({
  name: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: messages.poiNameRequired })
      .min(1, messages.poiNameRequired)
      .max(POI_FIELD_MAX.name, `名称は${POI_FIELD_MAX.name}文字以内で入力してください`),
  ),
  latitude: coordinate('緯度', LATITUDE_MAX),
  longitude: coordinate('経度', LONGITUDE_MAX),
  address: optionalText(POI_FIELD_MAX.address, '住所'),
  category: optionalText(POI_FIELD_MAX.category, 'カテゴリ'),
  description: optionalText(POI_FIELD_MAX.description, '説明'),
  phone: optionalText(POI_FIELD_MAX.phone, '電話番号'),
  website: optionalUrl('ウェブサイト'),
  image_url: optionalUrl('画像URL'),
  tags: tagsSchema,
});
export type PoiFields = z.infer<typeof poiFieldsSchema>;
export type PoiFieldsInput = z.input<typeof poiFieldsSchema>;

export const poiIdSchema = z.uuid({ error: messages.poiIdInvalid });

/** POST /console/v1/poi/register: create, or update when poi_id is given. */
export const registerPoiBodySchema = poiFieldsSchema.extend({
  dataset_id: datasetIdSchema,
  poi_id: poiIdSchema.optional(),
});
export type RegisterPoiBody = z.input<typeof registerPoiBodySchema>;

export const poiSchema = z.object({
  poi_id: z.string(),
  dataset_id: z.string(),
  name: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  address: z.string().nullable(),
  category: z.string().nullable(),
  description: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  image_url: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  /** Metres from the search point, when the search had one. */
  distance_m: z.number().optional(),
});
export type Poi = z.infer<typeof poiSchema>;

export const POI_PREVIEW_LIMIT = 10;

const datasetIdList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
  z.array(datasetIdSchema).min(1, messages.datasetIdRequired).max(10, 'データセットは10件まで指定できます'),
);

export const poiSearchQuerySchema = z.object({
  dataset_id: datasetIdList,
  keyword: z.preprocess(blankToUndefined, z.string().trim().max(100, 'キーワードは100文字以内で入力してください').optional()),
  limit: z.coerce.number().int().min(1).max(POI_SEARCH_MAX_LIMIT).default(POI_SEARCH_DEFAULT_LIMIT),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});
export type PoiSearchQuery = z.input<typeof poiSearchQuerySchema>;

export const poiSearchResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    pois: z.array(poiSchema),
    total: z.number().int(),
    /** True when the caller sees only the preview of a dataset they do not manage. */
    preview: z.boolean(),
  }),
});
export type PoiSearchResponse = z.infer<typeof poiSearchResponseSchema>;

export const poiResponseSchema = z.object({ success: z.literal(true), data: z.object({ poi: poiSchema }) });
export type PoiResponse = z.infer<typeof poiResponseSchema>;

export const poiRegisterResponseSchema = poiResponseSchema.extend({ message: z.string() });

export const poiParamsSchema = z.object({ poiId: poiIdSchema });
export const poiGetQuerySchema = z.object({
  dataset_id: datasetIdSchema.optional(),
  poi_id: poiIdSchema.optional(),
});
