import { once } from 'node:events';
import { TextDecoder } from 'node:util';
import { CsvError, parse } from 'csv-parse';
import { poiFieldsSchema, type ImportFormat, type ImportIssue, type PoiFields } from '@poi/shared/schemas/poi';

/** A file that cannot be read at all; the message is Japanese and shown as is (400). */
export class ImportFormatError extends Error {}

export type ImportItem = { ok: true; line: number; fields: PoiFields } | { ok: false; issues: ImportIssue[] };

const ENCODING_ERROR = 'ファイルの文字コードを判別できませんでした。UTF-8 または Shift_JIS で保存してください';

/**
 * Decodes the upload chunk by chunk: UTF-8 (a BOM is dropped), or Shift_JIS/CP932 — what Excel
 * writes — when the first chunk is not valid UTF-8. Invalid bytes later on are an error, never
 * silently replaced.
 */
export async function* decodeText(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  for await (const raw of source) {
    let chunk = raw;
    if (!decoder) {
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        chunk = chunk.subarray(3);
        decoder = new TextDecoder('utf-8', { fatal: true });
      } else {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(chunk, { stream: true });
          decoder = new TextDecoder('utf-8', { fatal: true });
        } catch {
          decoder = new TextDecoder('shift_jis', { fatal: true });
        }
      }
    }
    try {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    } catch {
      throw new ImportFormatError(ENCODING_ERROR);
    }
  }
  if (decoder) {
    try {
      const rest = decoder.decode();
      if (rest) yield rest;
    } catch {
      throw new ImportFormatError(ENCODING_ERROR);
    }
  }
}

/** Header names: the POI field names (any case) and the Japanese ones of the console. */
const HEADER_ALIASES: Record<string, keyof PoiFields> = {
  name: 'name', 名称: 'name', 名前: 'name',
  latitude: 'latitude', lat: 'latitude', 緯度: 'latitude',
  longitude: 'longitude', lon: 'longitude', lng: 'longitude', 経度: 'longitude',
  address: 'address', 住所: 'address',
  category: 'category', カテゴリ: 'category', カテゴリー: 'category',
  description: 'description', 説明: 'description',
  phone: 'phone', 電話番号: 'phone', 電話: 'phone',
  website: 'website', url: 'website', ウェブサイト: 'website',
  image_url: 'image_url', 画像url: 'image_url',
  tags: 'tags', タグ: 'tags',
};
const REQUIRED: Array<[keyof PoiFields, string]> = [
  ['name', '名称'],
  ['latitude', '緯度'],
  ['longitude', '経度'],
];

const fieldOf = (key: string): keyof PoiFields | undefined => HEADER_ALIASES[key.normalize('NFKC').trim().toLowerCase()];

/** Tags in a cell or property: a list, or text split on | 、 and commas. */
function splitTags(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.split(/[|、,]/);
}

function validate(line: number, raw: Record<string, unknown>): ImportItem {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = fieldOf(key);
    if (field) input[field] = field === 'tags' ? splitTags(value) : value;
  }
  const parsed = poiFieldsSchema.safeParse(input);
  if (parsed.success) return { ok: true, line, fields: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({ line, field: String(issue.path[0] ?? 'row'), reason: issue.message })),
  };
}

async function* parseCsv(text: AsyncIterable<string>): AsyncGenerator<ImportItem> {
  const parser = parse({ bom: false, relax_column_count: true, skip_empty_lines: true, info: true });
  // Fed by hand rather than piped: a decoding error must reach the reader below (pipe() would
  // leave the parser waiting for ever), and the reader stopping early must stop the feeding.
  const stop = new AbortController();
  void (async () => {
    try {
      for await (const chunk of text) {
        if (stop.signal.aborted) return;
        if (!parser.write(chunk)) await once(parser, 'drain', { signal: stop.signal });
      }
      parser.end();
    } catch (err) {
      if (!stop.signal.aborted) parser.destroy(err as Error);
    }
  })();
  let header: Array<keyof PoiFields | undefined> | undefined;
  try {
    for await (const { record, info } of parser as unknown as AsyncIterable<{ record: string[]; info: { lines: number; columns?: unknown } }>) {
      const line = info.lines;
      if (!header) {
        header = record.map(fieldOf);
        const missing = REQUIRED.filter(([f]) => !header!.includes(f)).map(([, label]) => label);
        if (missing.length) throw new ImportFormatError(`CSVのヘッダーに必須の列がありません: ${missing.join(', ')}`);
        continue;
      }
      if (record.length !== header.length) {
        yield { ok: false, issues: [{ line, field: 'row', reason: '列の数がヘッダーと一致しません' }] };
        continue;
      }
      const row: Record<string, unknown> = {};
      header.forEach((field, i) => {
        if (field) row[field] = record[i];
      });
      yield validate(line, row);
    }
  } catch (err) {
    if (err instanceof CsvError) {
      const at = (err as CsvError & { lines?: number }).lines;
      throw new ImportFormatError(`CSVの形式が正しくありません${at ? `(${at}行目付近)` : ''}`);
    }
    throw err;
  } finally {
    stop.abort();
    parser.destroy();
  }
  if (!header) throw new ImportFormatError('CSVにヘッダー行がありません');
}

const JSON_SHAPE_ERROR = 'JSONの形式が正しくありません。POIの配列、{"pois": [...]}、または GeoJSON FeatureCollection を指定してください';

/** JSON is read whole: the route has already capped the upload at 10 MB. */
async function* parseJson(text: AsyncIterable<string>): AsyncGenerator<ImportItem> {
  let all = '';
  for await (const part of text) all += part;
  let doc: unknown;
  try {
    doc = JSON.parse(all);
  } catch {
    throw new ImportFormatError('JSONの構文が正しくありません');
  }
  all = '';
  const obj = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  if (obj?.type === 'FeatureCollection' && Array.isArray(obj.features)) {
    for (const [i, feature] of obj.features.entries()) {
      const line = i + 1;
      const f = feature as { geometry?: { type?: string; coordinates?: unknown }; properties?: unknown } | null;
      if (!f || typeof f !== 'object') {
        yield { ok: false, issues: [{ line, field: 'row', reason: 'POIはオブジェクトで指定してください' }] };
        continue;
      }
      const coords = f.geometry?.coordinates;
      if (f.geometry?.type !== 'Point' || !Array.isArray(coords) || coords.length < 2) {
        yield { ok: false, issues: [{ line, field: 'geometry', reason: 'Point以外のジオメトリは取り込めません' }] };
        continue;
      }
      const props = f.properties && typeof f.properties === 'object' ? (f.properties as Record<string, unknown>) : {};
      yield validate(line, { ...props, latitude: coords[1], longitude: coords[0] });
    }
    return;
  }
  const list = Array.isArray(doc) ? doc : Array.isArray(obj?.pois) ? (obj.pois as unknown[]) : undefined;
  if (!list) throw new ImportFormatError(JSON_SHAPE_ERROR);
  for (const [i, item] of list.entries()) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      yield { ok: false, issues: [{ line: i + 1, field: 'row', reason: 'POIはオブジェクトで指定してください' }] };
      continue;
    }
    yield validate(i + 1, item as Record<string, unknown>);
  }
}

/** One item per data row: a valid POI or why it was skipped. Throws ImportFormatError for unreadable files. */
export function parseImport(source: AsyncIterable<Uint8Array>, format: ImportFormat): AsyncGenerator<ImportItem> {
  const text = decodeText(source);
  return format === 'csv' ? parseCsv(text) : parseJson(text);
}
