import { messages } from '@poi/shared/messages';
import { searchMessages } from '@poi/shared/schemas/pois';
import { suggestMessages } from '@poi/shared/schemas/suggest';

/*
 * English for the Japanese messages the public API (/api/v1) can answer, for callers who send
 * `Accept-Language: en` (plugins/error-handler.ts). Keyed by the Japanese text itself, so any code
 * path that produces a message (a zod schema, a service's AppError, the strict query check) gets
 * its English here without knowing about languages. A new public-API message needs its line here:
 * apps/server/test/public-api-english.test.ts sends every kind of bad input in both languages and
 * fails on a Japanese message without English.
 */

/** Names the Japanese messages give parameters, as the English ones call them (the parameter itself). */
const LABELS: Record<string, string> = {
  緯度: 'latitude',
  経度: 'longitude',
  半径: 'radius',
  '件数(limit)': 'limit',
  '開始位置(offset)': 'offset',
  キーワード: 'keyword',
};

/** Messages without variable parts. */
const EXACT = new Map<string, string>([
  // The envelope's own (plugins/error-handler.ts) and the routing's.
  [messages.notFound, 'The requested resource was not found'],
  [messages.methodNotAllowed, 'This HTTP method is not supported'],
  [messages.validationFailed, 'The request has invalid input'],
  [messages.invalidCharacter, 'The input contains characters that cannot be used (such as NUL)'],
  [messages.payloadTooLarge, 'The request is too large'],
  [messages.badUrl, 'The URL contains characters that cannot be used'],
  [messages.uriTooLong, 'The URL is too long'],
  [messages.invalidJson, 'The request body is not well-formed JSON'],
  [messages.emptyJsonBody, 'The request body is empty'],
  [messages.unsupportedMediaType, 'This Content-Type is not supported. Send application/json'],
  [messages.multipartRequired, 'Send the request as multipart/form-data'],
  [messages.headersTooLarge, 'The request headers are too large'],
  [messages.badRequest, 'The request is malformed'],
  [messages.timeoutError, 'The request timed out'],
  [messages.internalError, 'An error occurred on the server. Please try again later'],
  [messages.databaseUnavailable, 'The database cannot be reached. Please try again later'],
  [messages.tooManyRequests, 'Too many requests. Please wait a moment and try again'],
  // The key and the account (public-api.service.ts).
  ['APIキーが必要です。Authorization: Bearer <APIキー> または X-API-Key ヘッダーで指定してください', 'An API key is required. Send it as Authorization: Bearer <API key> or in the X-API-Key header'],
  ['APIキーの形式が正しくありません。コピーしたキーを確認してください', 'The API key is malformed. Check the key you copied'],
  ['APIキーが無効です', 'The API key is not valid'],
  ['このAPIキーは無効化されています', 'This API key has been revoked'],
  ['このAPIキーは有効期限が切れています', 'This API key has expired'],
  ['このIPアドレスからはこのAPIキーを使用できません', 'This API key cannot be used from this IP address'],
  ['このリファラーからはこのAPIキーを使用できません', 'This API key cannot be used from this referrer'],
  [messages.accountSuspended, 'This account is suspended. Please contact support'],
  [messages.corporateSuspended, "The corporate account this account belongs to is suspended, so the API cannot be used. Please contact the corporate account's administrator"],
  ['トライアルアカウントでは有料データセットを検索できません。/upgrade からプランをアップグレードしてください', 'A trial account cannot search paid datasets. Upgrade your plan at /upgrade'],
  ['現在検索を受け付けられません。しばらくしてから再度お試しください', 'Searches cannot be accepted right now. Please try again shortly'],
  ['このURLは GET メソッドで呼び出してください', 'Call this URL with the GET method'],
  [messages.datasetNotFound, 'Dataset not found'],
  // The search's parameters (packages/shared/src/schemas/pois.ts).
  [messages.datasetIdRequired, 'Specify dataset_id (the ID of the dataset to search)'],
  [messages.datasetIdInvalid, 'dataset_id is not a valid dataset ID (a UUID)'],
  ['データセットは10件まで指定できます', 'Up to 10 datasets can be specified in dataset_id'],
  ['キーワードは1つだけ指定してください', 'Specify keyword only once'],
  ['キーワードは100文字以内で入力してください', 'keyword must be at most 100 characters'],
  [searchMessages.limit, searchMessages.limit.replace(/^件数\(limit\)は1から(\d+)の整数で指定してください$/, 'limit must be an integer from 1 to $1')],
  [searchMessages.offset, searchMessages.offset.replace(/^開始位置\(offset\)は0から(\d+)の整数で指定してください$/, 'offset must be an integer from 0 to $1')],
  [searchMessages.keywordBlank, 'keyword has nothing to search for (a keyword of only spaces or symbols cannot be used)'],
  [searchMessages.keywordTooManyWords, searchMessages.keywordTooManyWords.replace(/^キーワードは(\d+)語以内で指定してください$/, 'keyword can have at most $1 words')],
  [searchMessages.cursorInvalid, 'cursor is not valid or does not match the search. Send the previous answer\'s next_cursor as it is, with the same search parameters'],
  [searchMessages.cursorWithOffset, 'cursor and offset cannot be used together'],
  ['緯度と経度は両方を指定してください', 'Specify both latitude and longitude'],
  ['半径を指定する場合は緯度と経度も指定してください', 'radius needs latitude and longitude too'],
  // Viewport, tag and category filters, answer format and fields (packages/shared/src/schemas/pois.ts).
  [searchMessages.bboxFormat, 'bbox must be four comma-separated numbers: minLon,minLat,maxLon,maxLat (for example bbox=139.69,35.65,139.78,35.71)'],
  [searchMessages.bboxLongitude, 'The longitudes of bbox must be between -180 and 180'],
  [searchMessages.bboxLatitude, 'The latitudes of bbox must be between -90 and 90'],
  [searchMessages.bboxLatitudeOrder, 'The minimum latitude of bbox (2nd) is greater than its maximum latitude (4th)'],
  [
    searchMessages.bboxLongitudeOrder,
    'The minimum longitude of bbox (1st) is greater than its maximum longitude (3rd). A box across the 180th meridian cannot be given: search it as two boxes',
  ],
  [searchMessages.bboxWithRadius, 'bbox and radius cannot be used together. Give the area either as bbox, or as latitude, longitude and radius'],
  [searchMessages.tagsBlank, 'tags has nothing to search for. Give comma-separated tags (a tag of only spaces or symbols cannot be used)'],
  [searchMessages.categoryBlank, 'category has nothing to search for (a category of only spaces or symbols cannot be used)'],
  ['tags は1回だけ、カンマ区切りで指定してください', 'Specify tags once, comma-separated'],
  ['fields は1回だけ、カンマ区切りで指定してください', 'Specify fields once, comma-separated'],
  ['format は json または geojson を指定してください', 'format must be json or geojson'],
  // The type-ahead's parameters (packages/shared/src/schemas/suggest.ts).
  [suggestMessages.qRequired, 'Specify q (what has been typed so far)'],
  [suggestMessages.qTooLong, suggestMessages.qTooLong.replace(/^入力中の文字\(q\)は(\d+)文字以内で指定してください$/, 'q must be at most $1 characters')],
  [suggestMessages.qBlank, 'q has nothing to search for (only spaces or symbols cannot be used)'],
  [suggestMessages.limit, suggestMessages.limit.replace(/^件数\(limit\)は1から(\d+)の整数で指定してください$/, 'limit must be an integer from 1 to $1')],
]);

type Rule = readonly [RegExp, (...parts: string[]) => string | undefined];
const label = (text: string) => LABELS[text];

/** Messages with variable parts (a parameter name, a number), matched whole. */
const RULES: Rule[] = [
  // A number out of its range: 緯度は-90から90の範囲で指定してください, 半径は1から50000メートルの範囲で…
  [/^(.+?)は(-?[\d.]+)から(-?[\d.]+)(メートル)?の範囲で指定してください$/, (l, min, max, metres) => label(l!) && `${label(l!)} must be between ${min} and ${max}${metres ? ' metres' : ''}`],
  [/^(.+?)は数値で指定してください$/, (l) => label(l!) && `${label(l!)} must be a number`],
  [/^(.+?)に空白や全角の文字が含まれています。半角の数字だけで指定してください$/, (l) => label(l!) && `${label(l!)} contains spaces or full-width characters. Use ASCII digits only`],
  // The strict query check (public-api/strict-query.ts).
  [/^パラメーター名 (.*) のURLエンコード\(%xx\)が正しくありません$/s, (name) => `The parameter name ${name} has broken URL encoding (%xx)`],
  [/^(.*) の値のURLエンコード\(%xx\)が正しくありません。UTF-8 の文字をパーセントエンコードして指定してください$/s, (name) => `The value of ${name} has broken URL encoding (%xx). Percent-encode its UTF-8 bytes`],
  [/^不明なパラメーター (.*) です。(.*) の誤りではありませんか$/s, (name, hint) => `Unknown parameter ${name}. Did you mean ${hint}?`],
  [/^不明なパラメーター (.*) です$/s, (name) => `Unknown parameter ${name}`],
  [/^不明なパラメーターがあります: (.*)。使えるのは (.*) です$/s, (names, known) => `Unknown parameters: ${names}. The parameters are ${known}`],
  [/^(.*) は1回だけ指定してください$/s, (name) => `Specify ${name} only once`],
  [/^([a-z_]+) は(\d+)文字以内で指定してください$/, (name, max) => `${name} must be at most ${max} characters`],
  [/^タグは(\d+)個以内、1つ(\d+)文字以内で指定してください$/, (count, max) => `tags: at most ${count} tags of at most ${max} characters each`],
  [
    /^fields に(?:不明な項目があります: (.*)。|項目を指定してください。)指定できるのは (.*) です$/s,
    (unknown, known) => `${unknown ? `fields names unknown fields: ${unknown}. ` : 'fields names no field. '}The fields are ${known}`,
  ],
  // Quotas and budgets (public-api.service.ts).
  [/^今月の無料検索回数\(([\d,]+)回\)の上限に達しました。\/upgrade からプランをアップグレードしてください$/, (n) => `This month's free searches (${n}) are used up. Upgrade your plan at /upgrade`],
  [/^今月の予算上限\((.+)\)に達したため、検索を停止しています。\/billing で予算を変更してください$/, (yen) => `Searches are stopped: this month's budget limit (${yen}) has been reached. Change the budget at /billing`],
];

/** The English of a Japanese public-API message; undefined when there is none (yet). */
export function englishOf(message: string): string | undefined {
  const exact = EXACT.get(message);
  if (exact !== undefined) return exact;
  for (const [pattern, english] of RULES) {
    const match = pattern.exec(message);
    if (match) {
      const text = english(...match.slice(1).map((part) => part ?? ''));
      if (text) return text;
    }
  }
  return undefined;
}
