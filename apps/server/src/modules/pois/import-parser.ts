import { once } from 'node:events';
import { TextDecoder } from 'node:util';
import { CsvError, parse } from 'csv-parse';
import { parseTagCell } from '@poi/shared/tag-cell';
import { poiFieldsSchema, poiIdSchema, type ImportFormat, type ImportIssue, type PoiFields } from '@poi/shared/schemas/pois';

/** A file that cannot be read at all; the message is Japanese and shown as is (400). */
export class ImportFormatError extends Error {}

export type ImportEncoding = 'utf-8' | 'shift_jis';

/** A valid row carries the poi_id it named, if any (update and replace imports use it). */
export type ImportItem = { ok: true; line: number; fields: PoiFields; poiId?: string } | { ok: false; issues: ImportIssue[] };

const ENCODING_ERROR = 'ファイルの文字コードを判別できませんでした。UTF-8 または Shift_JIS で保存してください';

/**
 * Decodes the upload in the encoding decided on the whole file (import-source). A UTF-8 BOM is
 * dropped; invalid bytes are an error, never silently replaced.
 */
export async function* decodeText(source: AsyncIterable<Uint8Array>, encoding: ImportEncoding): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  try {
    for await (const chunk of source) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch (err) {
    if (err instanceof TypeError) throw new ImportFormatError(ENCODING_ERROR);
    throw err;
  }
}

type ImportKey = keyof PoiFields | 'poi_id';

/** Header names: the POI field names (any case) and the Japanese ones of the console. */
const HEADER_ALIASES: Record<string, ImportKey> = {
  poi_id: 'poi_id', 'poi id': 'poi_id', poiid: 'poi_id',
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

const fieldOf = (key: string): ImportKey | undefined => HEADER_ALIASES[key.normalize('NFKC').trim().toLowerCase()];

const LONE_SURROGATE = /\p{Cs}/u;

/** Tags in a cell or a JSON string: the one documented separator, `|` (see tag-cell). */
const tagsOf = (value: unknown): unknown => (typeof value === 'string' ? parseTagCell(value) : value);

function validate(line: number, raw: Record<string, unknown>): ImportItem {
  const input: Record<string, unknown> = {};
  let poiId: unknown;
  for (const [key, value] of Object.entries(raw)) {
    const field = fieldOf(key);
    if (field === 'poi_id') poiId = value;
    else if (field) input[field] = field === 'tags' ? tagsOf(value) : value;
  }
  // A JSON file can escape a lone surrogate (\ud800): not a character at all, like bytes that are
  // not UTF-8, so the whole file is refused naming the row and field (PostgreSQL refuses the
  // text with a 500, PGlite stores U+FFFD). NUL is a character: its row is skipped (the schema).
  const broken = Object.entries({ ...input, poi_id: poiId }).find(([, v]) => [v].flat(3).some((x) => typeof x === 'string' && LONE_SURROGATE.test(x)));
  if (broken) throw new ImportFormatError(`${line}行目の ${broken[0]} に対になっていないサロゲート(\\ud800 など)が含まれています。文字として読めないため取り込めません`);
  const issues: ImportIssue[] = [];
  const parsed = poiFieldsSchema.safeParse(input);
  if (!parsed.success) {
    issues.push(...parsed.error.issues.map((issue) => ({ line, field: String(issue.path[0] ?? 'row'), reason: issue.message })));
  }
  const givenId = typeof poiId === 'string' ? poiId.trim() : poiId;
  let id: string | undefined;
  if (givenId !== undefined && givenId !== null && givenId !== '') {
    const checked = poiIdSchema.safeParse(givenId);
    if (checked.success) id = checked.data.toLowerCase();
    else issues.push({ line, field: 'poi_id', reason: 'POI IDはUUIDの形式で指定してください' });
  }
  if (issues.length || !parsed.success) return { ok: false, issues };
  return { ok: true, line, fields: parsed.data, ...(id ? { poiId: id } : {}) };
}

/**
 * The export's spreadsheet protection undone: a cell starting with ' had it added (see
 * export-format), so one leading ' is removed from every CSV cell.
 */
const unprotect = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);

/** Every cell empty or only spaces: a blank line. The first non-empty cell (usually the name) ends the check. */
const isBlankRecord = (record: string[]) => record.every((cell) => cell.trim() === '');

/** The row number a spreadsheet shows: the header is row 1, empty lines count as rows. */
const rowOf = (info: { records: number; empty_lines: number }) => info.records + info.empty_lines;

async function* parseCsv(text: AsyncIterable<string>): AsyncGenerator<ImportItem> {
  // A record csv-parse cannot read (a quote closing in the middle of a field) is reported as
  // that row's error; a stray quote inside an unquoted field (35°39'31"N) is kept as text.
  const broken: ImportIssue[] = [];
  let unclosed: { lines?: number; emptyLines?: number } | undefined;
  // Where the last record read (or skipped) ended: csv-parse reports an unclosed quote at the end
  // of the file, which can be lines past it; the record holding the quote starts right after this
  // one and the empty lines skipped since.
  // Records are read and skipped in file order, but a skip is reported while the parser runs
  // ahead of the reader: the furthest end seen wins (lines only grow).
  let lastEnd = 0;
  let lastEmpty = 0;
  const ended = (lines: number | undefined, emptyLines: number | undefined) => {
    if (typeof lines === 'number' && lines > lastEnd) {
      lastEnd = lines;
      lastEmpty = emptyLines ?? lastEmpty;
    }
  };
  const parser = parse({
    bom: false,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
    on_skip: (err) => {
      if (!err) return;
      const e = err as CsvError & { records?: number; empty_lines?: number; lines?: number };
      const row = (e.records ?? 0) + 1 + (e.empty_lines ?? 0);
      if (e.code === 'CSV_QUOTE_NOT_CLOSED') {
        // Only at the end of the file; placed once every record before it has been read (below).
        unclosed = { lines: e.lines, emptyLines: e.empty_lines };
        return;
      }
      broken.push({ line: row, field: 'row', reason: '引用符(")の使い方が正しくないため、この行を読み取れません' });
      ended(e.lines, e.empty_lines);
    },
  });
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
  let header: Array<ImportKey | undefined> | undefined;
  try {
    for await (const { record, info } of parser as unknown as AsyncIterable<{ record: string[]; info: { records: number; empty_lines: number; lines: number } }>) {
      while (broken.length) yield { ok: false, issues: [broken.shift()!] };
      const line = rowOf(info);
      ended(info.lines, info.empty_lines);
      // A row of only empty cells (`,,,,`, what a spreadsheet writes for an emptied row) is a
      // blank line: skipped, neither an error nor counted.
      if (isBlankRecord(record)) continue;
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
        if (field) row[field] = unprotect(record[i]!);
      });
      yield validate(line, row);
    }
    while (broken.length) yield { ok: false, issues: [broken.shift()!] };
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
  if (unclosed !== undefined) {
    const opened = lastEnd + 1 + Math.max(0, (unclosed.emptyLines ?? lastEmpty) - lastEmpty);
    const line = typeof unclosed.lines === 'number' ? Math.min(opened, unclosed.lines) : opened;
    throw new ImportFormatError(`CSVの形式が正しくありません(${line}行目で始まる引用符が閉じられていません)`);
  }
  if (!header) throw new ImportFormatError('CSVにヘッダー行がありません');
}

const JSON_SHAPE_ERROR = 'JSONの形式が正しくありません。POIの配列、{"pois": [...]}、または GeoJSON FeatureCollection を指定してください';

/** JSON is read whole: bounded by the upload limit (and the expanded limit of a gzip file). */
async function* parseJson(text: AsyncIterable<string>): AsyncGenerator<ImportItem> {
  const parts: string[] = [];
  for await (const part of text) parts.push(part);
  let doc: unknown;
  try {
    doc = JSON.parse(parts.join(''));
  } catch {
    throw new ImportFormatError('JSONの構文が正しくありません');
  }
  parts.length = 0;
  const obj = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  if (obj?.type === 'FeatureCollection' && Array.isArray(obj.features)) {
    for (const [i, feature] of obj.features.entries()) {
      const line = i + 1;
      const f = feature as { id?: unknown; geometry?: { type?: string; coordinates?: unknown }; properties?: unknown } | null;
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
export function parseImport(source: AsyncIterable<Uint8Array>, format: ImportFormat, encoding: ImportEncoding): AsyncGenerator<ImportItem> {
  const text = decodeText(source, encoding);
  return format === 'csv' ? parseCsv(text) : parseJson(text);
}
