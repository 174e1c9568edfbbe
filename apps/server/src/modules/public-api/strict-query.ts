import type { FieldError } from '../../lib/errors';

/** The public search's parameters; only dataset_id may repeat. */
export const SEARCH_PARAMETERS = ['dataset_id', 'keyword', 'latitude', 'longitude', 'radius', 'limit', 'offset', 'cursor', 'bbox', 'tags', 'category', 'format', 'fields'] as const;
const REPEATABLE = new Set(['dataset_id']);
/** The numeric parameters, with the names their messages use. */
const NUMERIC: Record<string, string> = { latitude: '緯度', longitude: '経度', radius: '半径', limit: '件数(limit)', offset: '開始位置(offset)' };

/** What a mistyped parameter most likely meant. */
const HINTS: Record<string, string> = {
  lat: 'latitude',
  latitude_deg: 'latitude',
  lng: 'longitude',
  lon: 'longitude',
  long: 'longitude',
  q: 'keyword',
  query: 'keyword',
  keywords: 'keyword',
  kw: 'keyword',
  word: 'keyword',
  r: 'radius',
  distance: 'radius',
  radius_m: 'radius',
  dataset: 'dataset_id',
  datasets: 'dataset_id',
  dataset_ids: 'dataset_id',
  datasetid: 'dataset_id',
  size: 'limit',
  per_page: 'limit',
  count: 'limit',
  page_size: 'limit',
  page: 'offset',
  skip: 'offset',
  start: 'offset',
  next: 'cursor',
  next_cursor: 'cursor',
  after: 'cursor',
  page_token: 'cursor',
  bounds: 'bbox',
  box: 'bbox',
  viewport: 'bbox',
  tag: 'tags',
  categories: 'category',
  field: 'fields',
  output: 'format',
};

function decode(text: string): string | undefined {
  // Most names and values have nothing to decode (and nothing to fail on).
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * Checks a public search's raw query string before the schema sees it. Fastify's query parser
 * silently keeps broken percent-encoding (`%E3%81`, `%ZZ`) and drops nothing it does not know,
 * so a mistyped `lat=` would search without the point and be billed. Answers the field errors:
 * undecodable names or values, unknown parameters (with the likely intended one) and scalar
 * parameters given twice.
 */
export function checkSearchQuery(rawQuery: string, parameters: readonly string[] = SEARCH_PARAMETERS): FieldError[] {
  const errors: FieldError[] = [];
  const counts = new Map<string, number>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const name = decode(rawName);
    if (name === undefined) {
      errors.push({ field: rawName, message: `パラメーター名 ${rawName} のURLエンコード(%xx)が正しくありません` });
      continue;
    }
    const value = eq === -1 ? undefined : decode(part.slice(eq + 1));
    if (eq !== -1 && value === undefined) {
      errors.push({ field: name, message: `${name} の値のURLエンコード(%xx)が正しくありません。UTF-8 の文字をパーセントエンコードして指定してください` });
    }
    const label = NUMERIC[name];
    // Number(' 35.68') is 35.68 and the schema trims, so `latitude=%2035.68` (or `+35.68`, a tab,
    // full-width digits) was searched and billed: a number must be sent as plain ASCII.
    if (label && value !== undefined && /[^\x21-\x7e]/.test(value)) {
      errors.push({ field: name, message: `${label}に空白や全角の文字が含まれています。半角の数字だけで指定してください` });
    }
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  for (const [name, count] of counts) {
    if (!parameters.includes(name)) {
      const hint = HINTS[name.toLowerCase()];
      errors.push({ field: name, message: hint ? `不明なパラメーター ${name} です。${hint} の誤りではありませんか` : `不明なパラメーター ${name} です` });
    } else if (count > 1 && !REPEATABLE.has(name)) {
      errors.push({ field: name, message: `${name} は1回だけ指定してください` });
    }
  }
  return errors;
}

/** The envelope's message for the errors of checkSearchQuery: unknown parameters listed together. */
export function summarizeQueryErrors(errors: FieldError[], parameters: readonly string[] = SEARCH_PARAMETERS): string {
  const unknown = errors.filter((e) => e.message.startsWith('不明なパラメーター'));
  if (unknown.length > 1) {
    return `不明なパラメーターがあります: ${unknown.map((e) => e.field).join(', ')}。使えるのは ${parameters.join(', ')} です`;
  }
  return errors[0]!.message;
}
