import type { z } from 'zod';
import { apiErrorSchema } from './common';
import { poiSearchResponseSchema } from './poi';

/** The answer of the public search API: the console search's, without its preview flag. */
export const publicSearchResponseSchema = poiSearchResponseSchema
  .extend({ data: poiSearchResponseSchema.shape.data.omit({ preview: true }) })
  .describe('検索成功(課金対象の1検索)');
export type PublicSearchResponse = z.infer<typeof publicSearchResponseSchema>;

/** Error answers of the public API, with the situations that produce them (shown on /docs/api). */
export const publicErrorResponses = {
  400: apiErrorSchema.describe('VALIDATION_ERROR: パラメーターが不正(dataset_id なし、範囲外の値など)'),
  401: apiErrorSchema.describe('UNAUTHORIZED: APIキーがない、形式が不正、存在しない、無効化済み、または期限切れ'),
  402: apiErrorSchema.describe('PAYMENT_REQUIRED: トライアルアカウントで有料データセットを指定した、または今月の無料検索回数を使い切った'),
  403: apiErrorSchema.describe('FORBIDDEN / ACCOUNT_SUSPENDED: 許可されていないIPアドレスやリファラーからの利用、またはアカウント停止中'),
  404: apiErrorSchema.describe('NOT_FOUND: 指定したデータセットが存在しない'),
  429: apiErrorSchema.describe('RATE_LIMITED: 1分あたりのリクエスト上限を超えた(Retry-After 秒後に再試行)'),
  503: apiErrorSchema.describe('SERVICE_UNAVAILABLE: 一時的に検索を受け付けられない(Retry-After 秒後に再試行)'),
} as const;
