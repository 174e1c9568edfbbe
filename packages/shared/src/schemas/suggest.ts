/**
 * The public API's type-ahead, GET /api/v1/poi/suggest (docs/search.md "Suggest"): its query and
 * answer, shown on /docs/api through /openapi.json.
 */
import { z } from 'zod';
import { messages } from '../messages';
import { foldSearchWord } from '../search-fold';
import { datasetIdSchema } from './datasets';
import { decimalParam, poiSchema } from './pois';

export const SUGGEST_Q_MAX = 50;
export const SUGGEST_MAX_LIMIT = 20;
export const SUGGEST_DEFAULT_LIMIT = 10;
/** The parameters GET /api/v1/poi/suggest takes; only dataset_id may repeat. */
export const SUGGEST_PARAMETERS = ['dataset_id', 'q', 'latitude', 'longitude', 'limit'] as const;

export const suggestMessages = {
  qRequired: '入力中の文字(q)を指定してください',
  qTooLong: `入力中の文字(q)は${SUGGEST_Q_MAX}文字以内で指定してください`,
  qBlank: '入力中の文字(q)に検索できる文字がありません(空白や記号だけは指定できません)',
  limit: `件数(limit)は1から${SUGGEST_MAX_LIMIT}の整数で指定してください`,
  pointPair: '緯度と経度は両方を指定してください',
} as const;

export const suggestQuerySchema = z
  .object({
    dataset_id: z.preprocess(
      (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
      z
        .array(datasetIdSchema, { error: messages.datasetIdRequired })
        .min(1, messages.datasetIdRequired)
        .max(10, 'データセットは10件まで指定できます')
        .describe('候補を探すデータセットのID(1〜10件。カンマ区切り、またはパラメーターの繰り返しで指定)'),
    ),
    q: z
      .string({ error: suggestMessages.qRequired })
      .min(1, suggestMessages.qRequired)
      .max(SUGGEST_Q_MAX, suggestMessages.qTooLong)
      .refine((v) => foldSearchWord(v) !== '', suggestMessages.qBlank)
      .describe(
        `入力中の文字(1〜${SUGGEST_Q_MAX}文字)。名称とその読みの先頭・途中に一致するPOIを返します。ひらがな・カタカナ・半角カナ、ローマ字(ヘボン式・訓令式。shibu / sibu、入力途中の shib も可)、長音(おおとや・おうとや・おーとや → 大戸屋)、ヴィ/ビ などの表記ゆれ、検索と同じ全角・半角、小書きの仮名、ヶ/ケ/が、主な異体字の違いを区別しません`,
      ),
    latitude: decimalParam('緯度', -90, 90, '緯度は-90から90の範囲で指定してください', '近い候補を先にする地点の緯度(世界測地系、10進数。経度と一緒に指定)'),
    longitude: decimalParam('経度', -180, 180, '経度は-180から180の範囲で指定してください', '近い候補を先にする地点の経度(世界測地系、10進数)'),
    limit: z
      .preprocess(
        (v) => (typeof v === 'string' ? (/^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN) : v),
        z
          .number({ error: suggestMessages.limit })
          .int(suggestMessages.limit)
          .min(1, suggestMessages.limit)
          .max(SUGGEST_MAX_LIMIT, suggestMessages.limit)
          .default(SUGGEST_DEFAULT_LIMIT),
      )
      .describe(`候補の件数(1〜${SUGGEST_MAX_LIMIT}、既定 ${SUGGEST_DEFAULT_LIMIT})`),
  })
  .superRefine((q, ctx) => {
    if ((q.latitude === undefined) !== (q.longitude === undefined)) {
      ctx.addIssue({ code: 'custom', path: [q.latitude === undefined ? 'latitude' : 'longitude'], message: suggestMessages.pointPair });
    }
  });
export type SuggestQuery = z.output<typeof suggestQuerySchema>;

export const SUGGEST_MATCH_KINDS = ['exact', 'name_prefix', 'reading_prefix', 'contains'] as const;

export const suggestionSchema = poiSchema.extend({
  distance_m: z.number().optional().describe('指定した地点からの距離(メートル)。緯度・経度を指定したときのみ'),
  match: z
    .enum(SUGGEST_MATCH_KINDS)
    .describe('一致の種類: exact(名称が入力と一致)、name_prefix(名称が入力で始まる)、reading_prefix(名称の読み・ローマ字が入力で始まる)、contains(名称か読みの途中に入力を含む)。この順に並びます'),
});

export const suggestResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    suggestions: z
      .array(suggestionSchema)
      .describe(
        '候補(最大 limit 件)。exact → name_prefix → reading_prefix → contains の順。同じ種類の中では、地点を指定すれば近い順、指定しなければ名称の短い順・名称順。最後は poi_id の昇順で、順序は常に一意です',
      ),
  }),
});
export type SuggestResponse = z.infer<typeof suggestResponseSchema>;
