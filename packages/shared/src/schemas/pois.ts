import { z } from 'zod';
import { LATITUDE_MAX, LONGITUDE_MAX, POI_FIELD_MAX, POI_SEARCH_DEFAULT_LIMIT, POI_SEARCH_MAX_LIMIT } from '../limits';
import { messages } from '../messages';
import { foldKeywordWords, foldSearchWord } from '../search-fold';
import { datasetIdSchema } from './datasets';

export const POI_TAGS_MAX = 50;
export const POI_TAG_MAX = 50;

/** Empty strings and null mean "not given" (empty fields are left out of the payload). */
const blankToUndefined = (v: unknown) => (v === '' || v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

/** PostgreSQL text cannot hold U+0000: refused as a field error rather than failing the write. */
const withoutNul = (label: string) => [(v: string) => !v.includes('\u0000'), `${label}に使用できない文字(NUL)が含まれています`] as const;

/** A field given with the wrong type (a JSON number for a phone number, say). */
const textError = (label: string) => ({ error: `${label}は文字列で入力してください` });

const optionalText = (max: number, label: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string(textError(label))
      .trim()
      .max(max, `${label}は${max}文字以内で入力してください`)
      .refine(...withoutNul(label))
      .optional(),
  );

const optionalUrl = (label: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string(textError(label))
      .trim()
      .max(POI_FIELD_MAX.website, `${label}は${POI_FIELD_MAX.website}文字以内で入力してください`)
      .refine(...withoutNul(label))
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

/**
 * A coordinate given as text: NFKC first (full-width ３５．６８ and －, as keywords are
 * normalised), U+2212 minus read as '-'; anything else that is not a plain decimal number
 * (`abc`, a decimal comma `35,68`, `35°39'N`) is "not a number", never "missing".
 */
const coordinateFromText = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const text = v.normalize('NFKC').replace(/\u2212/g, '-').trim();
  if (text === '') return undefined;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
};

const coordinate = (label: string, max: number) =>
  z.preprocess(
    coordinateFromText,
    z
      .number({ error: (issue) => (issue.input === undefined ? `${label}を入力してください` : `${label}は数値で入力してください`) })
      .refine(Number.isFinite, `${label}は数値で入力してください`)
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
    .array(z.string().max(POI_TAG_MAX, `タグは1つ${POI_TAG_MAX}文字以内で入力してください`).refine(...withoutNul('タグ')), {
      error: 'タグは文字列のリストで指定してください',
    })
    .max(POI_TAGS_MAX, `タグは${POI_TAGS_MAX}個以内で指定してください`)
    .optional(),
);

/** The POI entity's fields with their bounds, shared by the create form, the API and import. */
export const poiFieldsSchema = z.object({
  name: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: (issue) => (issue.input === undefined || issue.input === null ? messages.poiNameRequired : '名称は文字列で入力してください') })
      .min(1, messages.poiNameRequired)
      .max(POI_FIELD_MAX.name, `名称は${POI_FIELD_MAX.name}文字以内で入力してください`)
      .refine(...withoutNul('名称')),
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
  poi_id: z.string().describe('POIのID(UUID)'),
  dataset_id: z.string().describe('POIが属するデータセットのID'),
  name: z.string().describe('名称'),
  latitude: z.number().describe('緯度(世界測地系)'),
  longitude: z.number().describe('経度(世界測地系)'),
  address: z.string().nullable().describe('住所'),
  category: z.string().nullable().describe('カテゴリ'),
  description: z.string().nullable().describe('説明'),
  phone: z.string().nullable().describe('電話番号'),
  website: z.string().nullable().describe('ウェブサイトのURL'),
  image_url: z.string().nullable().describe('画像のURL'),
  tags: z.array(z.string()).describe('タグ'),
  created_at: z.string().describe('登録日時(ISO 8601)'),
  updated_at: z.string().describe('更新日時(ISO 8601)'),
  /** Metres from the search point, when the search had one. */
  distance_m: z.number().optional().describe('検索の中心からの距離(メートル)。緯度・経度を指定した検索のみ'),
});
export type Poi = z.infer<typeof poiSchema>;

export const POI_PREVIEW_LIMIT = 10;

const datasetIdList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
  z
    .array(datasetIdSchema, { error: messages.datasetIdRequired })
    .min(1, messages.datasetIdRequired)
    .max(10, 'データセットは10件まで指定できます')
    .describe('検索するデータセットのID(1〜10件。カンマ区切り、またはパラメーターの繰り返しで指定)'),
);

export const SEARCH_RADIUS_MIN = 1;
export const SEARCH_RADIUS_MAX = 50_000;
/**
 * Totals are exact up to this many matches; beyond it `total` is this number and `total_capped`
 * is true. A list without keyword and point is exact at any size (the datasets' POI counts).
 */
export const SEARCH_TOTAL_CAP = 100;
/** Space-separated keyword words (all required) a search accepts. */
export const SEARCH_KEYWORD_MAX_WORDS = 10;
export const SEARCH_OFFSET_MAX = 100_000;
export const SEARCH_CURSOR_MAX = 512;

export const searchMessages = {
  limit: `件数(limit)は1から${POI_SEARCH_MAX_LIMIT}の整数で指定してください`,
  offset: `開始位置(offset)は0から${SEARCH_OFFSET_MAX}の整数で指定してください`,
  keywordBlank: 'キーワードに検索する文字を入力してください(空白や記号だけのキーワードは指定できません)',
  keywordTooManyWords: `キーワードは${SEARCH_KEYWORD_MAX_WORDS}語以内で指定してください`,
  cursorInvalid: 'cursor が正しくないか、検索条件と一致しません。前の応答の next_cursor をそのまま、同じ検索条件で指定してください',
  cursorWithOffset: 'cursor と offset は同時に指定できません',
  bboxFormat: 'bbox は「最小経度,最小緯度,最大経度,最大緯度」の4つの数値をカンマ区切りで指定してください(例: bbox=139.69,35.65,139.78,35.71)',
  bboxLongitude: 'bbox の経度は-180から180の範囲で指定してください',
  bboxLatitude: 'bbox の緯度は-90から90の範囲で指定してください',
  bboxLatitudeOrder: 'bbox の最小緯度(2番目)が最大緯度(4番目)より大きくなっています',
  bboxLongitudeOrder:
    'bbox の最小経度(1番目)が最大経度(3番目)より大きくなっています。経度180度(日付変更線)をまたぐ範囲は指定できないため、2つの bbox に分けて検索してください',
  bboxWithRadius: 'bbox と radius(半径)は同時に指定できません。範囲は bbox か、緯度・経度と半径のどちらかで指定してください',
  tagsBlank: 'tags に検索できる文字がありません。カンマ区切りでタグを指定してください(空白や記号だけのタグは指定できません)',
  categoryBlank: 'category に検索できる文字がありません(空白や記号だけのカテゴリは指定できません)',
} as const;

/** A decimal number as sent in a URL: an optional sign, digits and a fraction. No hex, exponent or blank. */
const DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * A decimal query parameter: absent is undefined; anything else must be a decimal number
 * (an empty `latitude=` is an error, not an omission; `0x23` is not 35). The suggest uses it too.
 */
export const decimalParam = (label: string, min: number, max: number, range: string, description: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (DECIMAL.test(v.trim()) ? Number(v.trim()) : Number.NaN) : v),
    z.number({ error: `${label}は数値で指定してください` }).min(min, range).max(max, range).optional().describe(description),
  );

/** An integer query parameter with one message for every way it can be wrong (empty included). */
const integerParam = (message: string, min: number, max: number, fallback: number, description: string) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (/^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN) : v),
    z.number({ error: message }).int(message).min(min, message).max(max, message).default(fallback).describe(description),
  );

/** The words of a keyword as the search matches them: folded (search-fold.ts), distinct, each required. */
export function keywordWords(keyword: string): string[] {
  return foldKeywordWords(keyword);
}

/** A map viewport: [minLon, minLat, maxLon, maxLat], borders included. */
export type SearchBbox = [number, number, number, number];
export const SEARCH_TAGS_MAX = 10;

/**
 * `bbox=minLon,minLat,maxLon,maxLat` (GeoJSON's order). Four decimal numbers as `latitude` takes
 * them; min ≤ max on both axes: a box crossing the antimeridian is refused with a message saying
 * how to split it (Japan never needs one).
 */
const bboxParam = z
  .string({ error: searchMessages.bboxFormat })
  .transform((v, ctx): SearchBbox => {
    const parts = v.split(',').map((p) => p.trim());
    if (parts.length !== 4 || !parts.every((p) => DECIMAL.test(p))) {
      ctx.addIssue({ code: 'custom', message: searchMessages.bboxFormat });
      return z.NEVER;
    }
    const [minLon, minLat, maxLon, maxLat] = parts.map(Number) as SearchBbox;
    const problem =
      [minLon, maxLon].some((x) => !(Math.abs(x) <= 180))
        ? searchMessages.bboxLongitude
        : [minLat, maxLat].some((x) => !(Math.abs(x) <= 90))
          ? searchMessages.bboxLatitude
          : minLat > maxLat
            ? searchMessages.bboxLatitudeOrder
            : minLon > maxLon
              ? searchMessages.bboxLongitudeOrder
              : undefined;
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return [minLon, minLat, maxLon, maxLat];
  })
  .optional()
  .describe(
    '地図の表示範囲で絞り込みます: 最小経度,最小緯度,最大経度,最大緯度(世界測地系、10進数、カンマ区切り。例: 139.69,35.65,139.78,35.71)。境界上のPOIも含みます。経度180度をまたぐ範囲は指定できません。キーワードや緯度・経度(近い順)と組み合わせられますが、radius とは同時に指定できません',
  );

/**
 * `tags=a,b`: POIs having every tag (AND), compared after the keyword's folding
 * (search-fold.ts: full/half width, kana, long vowels, symbols …) as a whole tag, never a part.
 * Answers the folded tags, distinct and sorted.
 */
const searchTagsParam = z
  .string({ error: 'tags は1回だけ、カンマ区切りで指定してください' })
  .max(POI_TAG_MAX * SEARCH_TAGS_MAX + SEARCH_TAGS_MAX, `タグは${SEARCH_TAGS_MAX}個以内、1つ${POI_TAG_MAX}文字以内で指定してください`)
  .transform((v, ctx): string[] => {
    const raw = v.split(/[,、]/).map((t) => t.trim()).filter((t) => t !== '');
    if (raw.length > SEARCH_TAGS_MAX || raw.some((t) => t.length > POI_TAG_MAX)) {
      ctx.addIssue({ code: 'custom', message: `タグは${SEARCH_TAGS_MAX}個以内、1つ${POI_TAG_MAX}文字以内で指定してください` });
      return z.NEVER;
    }
    const folded = raw.map(foldSearchWord);
    if (!folded.length || folded.some((t) => t === '')) {
      ctx.addIssue({ code: 'custom', message: searchMessages.tagsBlank });
      return z.NEVER;
    }
    return [...new Set(folded)].sort();
  })
  .optional()
  .describe(
    `タグで絞り込みます(カンマ区切りで最大${SEARCH_TAGS_MAX}個。すべてのタグを持つPOIだけが該当します)。タグ全体が一致するものだけが該当し、キーワードと同じく全角・半角、大文字・小文字、ひらがな・カタカナ、記号などの違いは区別しません(例: wifi は Wi-Fi に一致)`,
  );

/** `category=…`: the POI's category equal to this one after the keyword's folding. Answers the folded category. */
const searchCategoryParam = z
  .string({ error: 'category は1回だけ指定してください' })
  .max(POI_FIELD_MAX.category, `category は${POI_FIELD_MAX.category}文字以内で指定してください`)
  .transform((v, ctx): string => {
    const folded = foldSearchWord(v);
    if (!folded) {
      ctx.addIssue({ code: 'custom', message: searchMessages.categoryBlank });
      return z.NEVER;
    }
    return folded;
  })
  .optional()
  .describe('カテゴリで絞り込みます。カテゴリ全体が一致するPOIだけが該当します(キーワードと同じく全角・半角、ひらがな・カタカナ、記号などの違いは区別しません)');

const poiSearchQueryShape = {
  dataset_id: datasetIdList,
  keyword: z
    .string({ error: 'キーワードは1つだけ指定してください' })
    .max(100, 'キーワードは100文字以内で入力してください')
    .refine((v) => keywordWords(v).length > 0, searchMessages.keywordBlank)
    .refine((v) => keywordWords(v).length <= SEARCH_KEYWORD_MAX_WORDS, searchMessages.keywordTooManyWords)
    .optional()
    .describe(
      '名称・住所・カテゴリ・タグに含まれる文字列(最大100文字)。空白(半角・全角)で区切った語はすべてを含むPOIだけが該当します(AND。語はどの項目にあってもよく、順序も問いません。最大10語)。全角・半角、大文字・小文字、ひらがな・カタカナ、長音(ー・-)、小書きの仮名(ァ・ャ・ッなど)、漢字の間のヶ・ケ・が、主な異体字(髙・﨑・齋・邊など)、記号と名称中の空白、アクセント記号(é など)を区別しません。名称は読み(ひらがな・カタカナ・ローマ字)でも探せます(例: とうきょうたわー、tokyo tower → 東京タワー)',
    ),
  latitude: decimalParam('緯度', -90, 90, '緯度は-90から90の範囲で指定してください', '検索の中心の緯度(世界測地系、10進数)。経度と一緒に指定すると近い順に並びます'),
  longitude: decimalParam('経度', -180, 180, '経度は-180から180の範囲で指定してください', '検索の中心の経度(世界測地系、10進数)'),
  radius: decimalParam(
    '半径',
    SEARCH_RADIUS_MIN,
    SEARCH_RADIUS_MAX,
    `半径は${SEARCH_RADIUS_MIN}から${SEARCH_RADIUS_MAX}メートルの範囲で指定してください`,
    '中心からの半径(メートル、1〜50000)。緯度・経度と一緒に指定します。距離は平均地球半径 6,371,008.8 m の球面上の大圏距離です',
  ),
  limit: integerParam(searchMessages.limit, 1, POI_SEARCH_MAX_LIMIT, POI_SEARCH_DEFAULT_LIMIT, `1ページの件数(1〜${POI_SEARCH_MAX_LIMIT}、既定 ${POI_SEARCH_DEFAULT_LIMIT})`),
  offset: integerParam(searchMessages.offset, 0, SEARCH_OFFSET_MAX, 0, 'ページ番号で送るときに読み飛ばす件数(0〜100000)。cursor と同時には指定できません'),
  cursor: z
    .string({ error: searchMessages.cursorInvalid })
    .regex(/^[A-Za-z0-9_-]{1,400}\.[A-Za-z0-9_-]{1,100}$/, searchMessages.cursorInvalid)
    .max(SEARCH_CURSOR_MAX, searchMessages.cursorInvalid)
    .optional()
    .describe('前の応答の next_cursor。同じ検索条件で続きのページを返します(データが追加・削除されても重複・欠落なく最後までたどれます)'),
  bbox: bboxParam,
  tags: searchTagsParam,
  category: searchCategoryParam,
};

/** The checks between parameters, shared by the console's and the public API's search. */
function refineSearchQuery(
  q: { latitude?: number; longitude?: number; radius?: number; cursor?: string; offset: number; bbox?: unknown },
  ctx: z.RefinementCtx,
): void {
  if ((q.latitude === undefined) !== (q.longitude === undefined)) {
    ctx.addIssue({ code: 'custom', path: [q.latitude === undefined ? 'latitude' : 'longitude'], message: '緯度と経度は両方を指定してください' });
  }
  if (q.radius !== undefined && q.latitude === undefined) {
    ctx.addIssue({ code: 'custom', path: ['radius'], message: '半径を指定する場合は緯度と経度も指定してください' });
  }
  if (q.cursor !== undefined && q.offset !== 0) {
    ctx.addIssue({ code: 'custom', path: ['cursor'], message: searchMessages.cursorWithOffset });
  }
  if (q.bbox !== undefined && q.radius !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['bbox'], message: searchMessages.bboxWithRadius });
  }
}

export const poiSearchQuerySchema = z.object(poiSearchQueryShape).superRefine(refineSearchQuery);
export type PoiSearchQuery = z.input<typeof poiSearchQuerySchema>;

/** What `fields=` may name: the POI's fields; `id` is poi_id's short name. */
export const POI_FIELD_NAMES = Object.keys(poiSchema.shape) as Array<keyof Poi>;
const FIELD_ALIASES: Record<string, keyof Poi> = { id: 'poi_id' };
export const SEARCH_FORMATS = ['json', 'geojson'] as const;
export type SearchFormat = (typeof SEARCH_FORMATS)[number];

/**
 * `fields=…`: the POI fields each answer keeps, in the POI's own order; poi_id is always kept
 * (paging, deduplication and GeoJSON's feature id need it). Unknown names are one 400 naming them.
 */
const fieldsParam = z
  .string({ error: 'fields は1回だけ、カンマ区切りで指定してください' })
  .transform((v, ctx): Array<keyof Poi> => {
    const names = v.split(',').map((f) => f.trim()).filter((f) => f !== '');
    const unknown = names.filter((n) => !(POI_FIELD_NAMES as string[]).includes(n) && !(n in FIELD_ALIASES));
    if (unknown.length || !names.length) {
      ctx.addIssue({
        code: 'custom',
        message: `${unknown.length ? `fields に不明な項目があります: ${unknown.join(', ')}。` : 'fields に項目を指定してください。'}指定できるのは ${['id', ...POI_FIELD_NAMES].join(', ')} です`,
      });
      return z.NEVER;
    }
    const wanted = new Set<string>(['poi_id', ...names.map((n) => FIELD_ALIASES[n] ?? n)]);
    return POI_FIELD_NAMES.filter((n) => wanted.has(n));
  })
  .optional()
  .describe(
    `応答に含めるPOIの項目(カンマ区切り。例: id,name,latitude,longitude)。poi_id(別名 id)は常に含まれます。指定できるのは id, ${POI_FIELD_NAMES.join(', ')} です。distance_m は緯度・経度を指定した検索でのみ返ります`,
  );

/** The public API's search: the console's parameters, and the answer's format and fields. */
export const publicPoiSearchQuerySchema = z
  .object({
    ...poiSearchQueryShape,
    format: z
      .enum(SEARCH_FORMATS, { error: 'format は json または geojson を指定してください' })
      .optional()
      .describe(
        '応答の形式。geojson は GeoJSON の FeatureCollection(Content-Type: application/geo+json)を返します(Accept: application/geo+json でも同じ)。各 Feature の geometry は POI の地点、id は poi_id、properties は緯度・経度以外の項目です。total・total_capped・next_cursor は FeatureCollection の直下にあります。エラーは常に JSON です',
      ),
    fields: fieldsParam,
  })
  .superRefine(refineSearchQuery);

export const poiSearchResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    pois: z
      .array(poiSchema)
      .describe(
        '検索結果のPOI。緯度・経度を指定した検索は近い順、それ以外は登録の新しい順(キーワードがあれば、名称がキーワードと一致するPOI、名称がキーワードで始まるPOI、その他の順に分けたうえで、それぞれ新しい順)。同じ距離(同じ登録日時)のPOIは poi_id の昇順(降順)で並び、順序は常に一意です',
      ),
    /** Exact up to SEARCH_TOTAL_CAP (then `total_capped`); exact at any size without keyword and point. */
    total: z
      .number()
      .int()
      .describe('該当件数。どのページでも同じ値です。100件までは正確に数え、100件を超えると 100 を返して total_capped が true になります。キーワードも地点も指定しない一覧は件数の上限なく正確です'),
    total_capped: z.boolean().describe('該当件数が100件を超え、total が上限の100であること'),
    next_cursor: z
      .string()
      .nullable()
      .describe('続きのページがあるとき、それを返す cursor の値。最後のページでは null'),
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

export const movePoiBodySchema = z.object({ target_dataset_id: datasetIdSchema });
export type MovePoiBody = z.infer<typeof movePoiBodySchema>;

export const EXPORT_FORMATS = ['csv', 'geojson'] as const;
export const exportQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS).default('csv'),
  /** gzip: the file comes as .csv.gz / .geojson.gz, which the import takes back as it is. */
  compress: z.enum(['gzip'], { error: '圧縮形式は gzip を指定してください' }).optional(),
});

export const IMPORT_FORMATS = ['csv', 'json'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/**
 * How an import treats the dataset's POIs: `add` adds every row; `update` updates the POI of
 * the row's poi_id when it belongs to this dataset and adds the other rows (a poi_id of another
 * dataset is a row error); `replace` does what `update` does and deletes the dataset's POIs the
 * file does not name, in the same transaction. `update` is the default: re-importing an export
 * never duplicates, and a file without poi_id is simply added.
 */
export const IMPORT_MODES = ['add', 'update', 'replace'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export const IMPORT_DEFAULT_MODE: ImportMode = 'update';

/** The form fields of a bulk import (in any order around the file). */
export const importFieldsSchema = z.object({
  dataset_id: z.string({ error: messages.datasetIdRequired }).pipe(datasetIdSchema),
  format: z.enum(IMPORT_FORMATS, { error: messages.importWrongFormat }),
  mode: z.enum(IMPORT_MODES, { error: messages.importWrongMode }).default(IMPORT_DEFAULT_MODE),
});

/** Japanese names of the fields an import reports on (skipped rows). */
export const IMPORT_FIELD_LABELS: Record<string, string> = {
  name: '名称',
  latitude: '緯度',
  longitude: '経度',
  address: '住所',
  category: 'カテゴリ',
  description: '説明',
  phone: '電話番号',
  website: 'ウェブサイト',
  image_url: '画像URL',
  tags: 'タグ',
  poi_id: 'POI ID',
  geometry: 'ジオメトリ',
  row: '行全体',
};

/**
 * A skipped row. `line` is the row as a spreadsheet shows it for CSV (the header is row 1, the
 * first record row 2, empty lines counted), and the position of the POI (1 = first) in JSON.
 */
export const importIssueSchema = z.object({ line: z.number().int(), field: z.string(), reason: z.string() });
export type ImportIssue = z.infer<typeof importIssueSchema>;

/** The skipped rows reported back: the first 100. */
export const IMPORT_ISSUES_REPORTED = 100;

export const bulkImportResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  /** Rows accepted: added, updated and unchanged. */
  imported_count: z.number().int(),
  total_count: z.number().int(),
  added_count: z.number().int(),
  /** Rows naming a POI of the dataset that differed from it (rewritten, updated_at moved). */
  updated_count: z.number().int(),
  /** Rows naming a POI of the dataset equal to it: nothing written, updated_at kept. */
  unchanged_count: z.number().int(),
  /** POIs of the dataset a `replace` import deleted. */
  deleted_count: z.number().int(),
  skipped_count: z.number().int(),
  skipped: z.array(importIssueSchema),
});
export type BulkImportResponse = z.infer<typeof bulkImportResponseSchema>;
