import type { z } from 'zod';
import { messages } from '../messages';
import { apiErrorSchema } from './common';
import { poiSearchResponseSchema, searchMessages, SEARCH_TOTAL_CAP } from './pois';

/** Headers of every public API answer, declared in /openapi.json (OpenAPI response headers). */
const rateHeaders = {
  'X-Request-Id': {
    type: 'string',
    description: 'この応答のリクエストID(問い合わせの際にお知らせください)。クライアントが 8〜128 文字の英数字・._- の X-Request-Id を送ると同じ値を返し、それ以外はサーバーが採番します',
  },
  'X-RateLimit-Limit': { type: 'integer', description: '1分あたりのリクエスト上限(アカウント種別ごと。APIキーのないリクエストはIPアドレスごと)' },
  'X-RateLimit-Remaining': { type: 'integer', description: '現在の1分間の残り回数' },
  'X-RateLimit-Reset': { type: 'integer', description: '残り回数がリセットされるまでの秒数' },
  'Cache-Control': { type: 'string', description: '常に no-store(応答をキャッシュに保存しないでください)' },
} as const;
const retryHeaders = { ...rateHeaders, 'Retry-After': { type: 'integer', description: '再試行までに待つ秒数' } } as const;

const samplePoi = (over: Record<string, unknown>) => ({
  poi_id: '0b7c4a52-6a4e-4b8e-9d0e-2f1a3b4c5d6e',
  dataset_id: '8f14e45f-ceea-467f-a0e6-1b2c3d4e5f60',
  name: 'カフェ 丸の内テラス',
  latitude: 35.681821,
  longitude: 139.766084,
  address: '東京都千代田区丸の内1-9-1',
  category: 'カフェ',
  description: null,
  phone: '03-1234-5678',
  website: 'https://example.com/cafe',
  image_url: null,
  tags: ['Wi-Fi', '電源あり'],
  created_at: '2026-11-20T09:15:00.000Z',
  updated_at: '2026-11-20T09:15:00.000Z',
  ...over,
});

const successExamples = {
  radius: {
    summary: '半径検索(近い順。2ページ目以降は next_cursor で続けて取得)',
    value: {
      success: true,
      data: {
        pois: [
          samplePoi({ distance_m: 112.4 }),
          samplePoi({ poi_id: '3d9f1e27-5b8a-4c6d-8e2f-7a1b9c0d4e3f', name: 'カフェ 東京駅八重洲口', latitude: 35.680398, longitude: 139.769363, address: '東京都中央区八重洲1-5-3', distance_m: 236.9 }),
        ],
        total: 37,
        total_capped: false,
        next_cursor: 'eyJkIjoxMjMuNCwiaSI6IjNkOWYxZTI3In0.q1W2e3R4t5Y6u7I8o9P0aA',
      },
    },
  },
  capped: {
    summary: `該当が${SEARCH_TOTAL_CAP}件を超えるキーワード検索(名称の一致・前方一致が先、それぞれ新しい順。total は上限の ${SEARCH_TOTAL_CAP}、total_capped が true)`,
    value: {
      success: true,
      data: { pois: [samplePoi({})], total: SEARCH_TOTAL_CAP, total_capped: true, next_cursor: 'eyJ0IjoiMjAyNi0xMS0yMCAwOToxNTowMCswMCIsImkiOiIwYjdjIn0.Zx8yW7vU6tS5rQ4pO3nM2l' },
    },
  },
  last: {
    summary: '最後のページ(next_cursor が null)',
    value: { success: true, data: { pois: [samplePoi({ distance_m: 4980.2 })], total: 37, total_capped: false, next_cursor: null } },
  },
  empty: { summary: '該当なし', value: { success: true, data: { pois: [], total: 0, total_capped: false, next_cursor: null } } },
};

const error = (code: string, message: string, errors?: Array<{ field: string; message: string }>) => ({
  success: false,
  error: { code, message, request_id: '5f0c6b1e-2a3d-4e8f-9b7a-1c2d3e4f5a6b' },
  ...(errors ? { errors } : {}),
});

/** The answer of the public search API: the console search's, without its preview flag. */
export const publicSearchResponseSchema = poiSearchResponseSchema
  .extend({ data: poiSearchResponseSchema.shape.data.omit({ preview: true }) })
  .describe('検索成功(課金対象の1検索)')
  .meta({ headers: rateHeaders, 'x-examples': successExamples });
export type PublicSearchResponse = z.infer<typeof publicSearchResponseSchema>;

/** An error answer with its situations (shown on /docs/api), headers and sample bodies. */
const errorResponse = (description: string, examples: Record<string, { summary: string; value: unknown }>, headers: object = rateHeaders) =>
  apiErrorSchema.describe(description).meta({ headers, 'x-examples': examples });

/** Error answers of the public API, with the situations that produce them (shown on /docs/api). */
export const publicErrorResponses = {
  400: errorResponse(
    'VALIDATION_ERROR: パラメーターが不正(dataset_id なし、範囲外・数値でない値、URLエンコードの誤り、不明なパラメーター、空白や記号だけのキーワード、不正な cursor など)。errors[] に項目(field)ごとの理由が入ります',
    {
      unknown: {
        summary: '不明なパラメーター(lat / lng / q などの綴り違い)',
        value: error('VALIDATION_ERROR', '不明なパラメーターがあります: lat, lng。使えるのは dataset_id, keyword, latitude, longitude, radius, limit, offset, cursor です', [
          { field: 'lat', message: '不明なパラメーター lat です。latitude の誤りではありませんか' },
          { field: 'lng', message: '不明なパラメーター lng です。longitude の誤りではありませんか' },
        ]),
      },
      limit: {
        summary: '範囲外・整数でない limit',
        value: error('VALIDATION_ERROR', searchMessages.limit, [{ field: 'limit', message: searchMessages.limit }]),
      },
      encoding: {
        summary: '壊れたURLエンコード(keyword=%E3%81 など)',
        value: error('VALIDATION_ERROR', 'keyword の値のURLエンコード(%xx)が正しくありません。UTF-8 の文字をパーセントエンコードして指定してください', [
          { field: 'keyword', message: 'keyword の値のURLエンコード(%xx)が正しくありません。UTF-8 の文字をパーセントエンコードして指定してください' },
        ]),
      },
      cursor: {
        summary: '検索条件と一致しない cursor',
        value: error('VALIDATION_ERROR', searchMessages.cursorInvalid, [{ field: 'cursor', message: searchMessages.cursorInvalid }]),
      },
    },
  ),
  401: errorResponse('UNAUTHORIZED: APIキーがない、形式が不正、存在しない、無効化済み、または期限切れ', {
    missing: { summary: 'APIキーなし', value: error('UNAUTHORIZED', 'APIキーが必要です。Authorization: Bearer <APIキー> または X-API-Key ヘッダーで指定してください') },
  }),
  402: errorResponse('PAYMENT_REQUIRED: トライアルアカウントで有料データセットを指定した、または今月の無料検索回数を使い切った。BUDGET_EXCEEDED: 上限到達時に停止する月間予算に達した(課金されません)', {
    trial: { summary: 'トライアルで有料データセット', value: error('PAYMENT_REQUIRED', 'トライアルアカウントでは有料データセットを検索できません。/upgrade からプランをアップグレードしてください') },
    budget: { summary: '月間予算の上限に到達', value: error('BUDGET_EXCEEDED', '今月の予算上限(¥10,000)に達したため、検索を停止しています。/billing で予算を変更してください') },
  }),
  403: errorResponse('FORBIDDEN / ACCOUNT_SUSPENDED: 許可されていないIPアドレスやリファラー(Referer がなければ Origin)からの利用、またはアカウント停止中', {
    referrer: { summary: '許可されていないリファラー', value: error('FORBIDDEN', 'このリファラーからはこのAPIキーを使用できません') },
  }),
  404: errorResponse('NOT_FOUND: 指定したデータセットが存在しない(/api/v1 の存在しないURLも 404)', {
    dataset: { summary: '存在しないデータセット', value: error('NOT_FOUND', messages.datasetNotFound) },
  }),
  405: errorResponse('METHOD_NOT_ALLOWED: GET 以外のメソッド(HEAD・POST など。課金されません)。Allow ヘッダーに使えるメソッドが入ります', {
    post: { summary: 'POST で呼び出した', value: error('METHOD_NOT_ALLOWED', 'このURLは GET メソッドで呼び出してください') },
  }),
  429: errorResponse(
    'RATE_LIMITED: 1分あたりのリクエスト上限を超えた(Retry-After 秒後に再試行)',
    { limit: { summary: 'レート制限', value: error('RATE_LIMITED', messages.tooManyRequests) } },
    retryHeaders,
  ),
  503: errorResponse(
    'SERVICE_UNAVAILABLE: 一時的に検索を受け付けられない(Retry-After 秒後に再試行)',
    { busy: { summary: '一時的に受付停止', value: error('SERVICE_UNAVAILABLE', '現在検索を受け付けられません。しばらくしてから再度お試しください') } },
    retryHeaders,
  ),
} as const;
