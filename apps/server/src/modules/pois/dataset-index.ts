/**
 * One dataset's POIs in memory for point searches: coordinates in a static kdbush
 * index walked nearest-first by geokdbush, each POI's answer already serialised, its search text
 * (search_text, folded as PostgreSQL holds it) with an index of its character bigrams, and the
 * writes applied since the index was built kept beside it (tombstones and a small map of changed
 * rows) until the next rebuild.
 *
 * A keyword matches as the SQL path's `search_text LIKE '%word%'` for every word: the word is a
 * substring of the row's search text (UTF-8 bytes, so the same as characters). Rows are found
 * either nearest first with the keyword as geokdbush's predicate (common words: matches come
 * soon) or from the bigram postings of the word's rarest bigram (rare words: a walk would read
 * most of the tree), each candidate then tested in full.
 *
 * The order and the distances are PostgreSQL's, computed the same way in JavaScript: the KNN
 * value is the chord between earthdistance cube points (ll_to_earth), ties broken by poi_id;
 * the radius filter and distance_m are earth_distance converted to the mean Earth, as
 * pois.repository's point query does. geokdbush's own (haversine) order only finds candidates.
 */
import KDBush from 'kdbush';
import { around, distance as haversineKm } from 'geokdbush';
import { EARTHDISTANCE_RADIUS_M, EARTH_MEAN_RADIUS_M } from '@poi/shared/geo';

const RADIANS_PER_DEGREE = Math.PI / 180;
const R = EARTHDISTANCE_RADIUS_M;
/** The factors pois.repository binds as RADIUS_TO_EARTHDISTANCE and EARTHDISTANCE_TO_MEAN. */
const RADIUS_TO_EARTHDISTANCE = EARTHDISTANCE_RADIUS_M / EARTH_MEAN_RADIUS_M;
const EARTHDISTANCE_TO_MEAN = EARTH_MEAN_RADIUS_M / EARTHDISTANCE_RADIUS_M;

/** ll_to_earth(lat, lon): earth()*cos(radians(lat))*cos(radians(lon)), … in PostgreSQL's order of operations. */
export function cubeOf(lat: number, lon: number): [number, number, number] {
  const a = lat * RADIANS_PER_DEGREE;
  const b = lon * RADIANS_PER_DEGREE;
  return [R * Math.cos(a) * Math.cos(b), R * Math.cos(a) * Math.sin(b), R * Math.sin(a)];
}

/** A chord's distance_m as the search answers it (mean-Earth metres): the suggest writes the same. */
export const distanceOfChord = (chord: number): number => chordToEarthDistance(chord) * EARTHDISTANCE_TO_MEAN;

/** earthdistance's sec_to_gc: the great-circle metres (on earth()) of a chord. */
function chordToEarthDistance(chord: number): number {
  if (chord < 0) return 0;
  if (chord / (2 * R) > 1) return Math.PI * R;
  return 2 * R * Math.asin(chord / (2 * R));
}

/** What a search asks of one dataset's index. */
export interface PointQuery {
  latitude: number;
  longitude: number;
  /** Mean-Earth metres, as the API takes it. */
  radius?: number;
  /** Only rows after this key: past its band of KNN values, or inside it after its id (pois.repository knnBand). */
  after?: { lo: number; hi: number; id: string };
  /** Folded keyword words, each required (pois.repository requiredWords). */
  words?: string[];
  /** Only rows inside [minLon, minLat, maxLon, maxLat], borders included (the SQL filter's comparisons). */
  bbox?: readonly [number, number, number, number];
}

/** A point query prepared once per search and shared by the datasets it reads. */
export interface PreparedQuery extends PointQuery {
  cx: number;
  cy: number;
  cz: number;
  /** The radius in earthdistance metres (the SQL filter's right-hand side). */
  limitEd?: number;
  /** geokdbush's pruning distance: the radius with room for the two formulas' rounding. */
  maxKm: number;
  /** The words as UTF-8, to test against stored search texts. */
  wordBytes: Buffer[];
}

export function prepareQuery(q: PointQuery): PreparedQuery {
  const [cx, cy, cz] = cubeOf(q.latitude, q.longitude);
  const { latitude, longitude, radius, after, words, bbox } = q;
  // Every field set, in one order: one object shape for every query (the row loops read it).
  return {
    latitude,
    longitude,
    radius,
    after,
    words,
    bbox,
    cx,
    cy,
    cz,
    limitEd: radius === undefined ? undefined : radius * RADIUS_TO_EARTHDISTANCE,
    maxKm: radius === undefined ? Infinity : (radius / 1000) * (1 + 1e-9) + 1e-6,
    wordBytes: (words ?? []).map((w) => Buffer.from(w)),
  };
}

/**
 * The bigram keys of a text: each pair of adjacent UTF-16 code units, neither a space (a word
 * never holds one). A word's pairs all occur in any text holding the word, so the rows of a pair's
 * postings include every match; each is then tested in full.
 */
function bigramsOf(text: string): number[] {
  const keys: number[] = [];
  for (let k = 0; k + 1 < text.length; k++) {
    const a = text.charCodeAt(k);
    const b = text.charCodeAt(k + 1);
    if (a !== 32 && b !== 32) keys.push(a * 65536 + b);
  }
  return keys;
}

/**
 * For each bigram of the search texts, the rows (ascending) holding it, as varint gaps: a common
 * bigram costs about a byte per row. The keys are in an open-addressing table of typed arrays
 * (about 55 bigrams a row: 55 million lookups for a million rows, 2.7 s of the build here).
 */
export class BigramPostings {
  private bits = 12;
  /** key + 1 per slot (0: empty), and the posting it leads to. */
  private keys = new Float64Array(1 << 12);
  private slots = new Int32Array(1 << 12);
  private data: Uint8Array[] = [];
  private length = new Int32Array(256);
  private last = new Int32Array(256);
  /** Rows per posting. */
  count = new Int32Array(256);
  /** Bytes held by the postings (their buffers), the table and the arrays. */
  bytes = 0;

  private slotOf(key: number): number {
    const mask = (1 << this.bits) - 1;
    let h = Math.imul(key | 0, 0x9e3779b1) >>> (32 - this.bits);
    while (this.keys[h] !== 0 && this.keys[h] !== key + 1) h = (h + 1) & mask;
    return h;
  }

  /** The posting of a key, -1 when no row holds it. */
  find(key: number): number {
    const h = this.slotOf(key);
    return this.keys[h] === 0 ? -1 : this.slots[h]!;
  }

  private create(slot: number, key: number): number {
    const p = this.data.length;
    this.keys[slot] = key + 1;
    this.slots[slot] = p;
    this.data.push(new Uint8Array(4));
    if (p >= this.length.length) {
      const n = this.length.length * 2;
      const widen = (a: Int32Array) => {
        const b = new Int32Array(n);
        b.set(a);
        return b;
      };
      this.length = widen(this.length);
      this.last = widen(this.last);
      this.count = widen(this.count);
    }
    this.last[p] = -1;
    if (this.data.length * 2 > this.keys.length) this.rehash();
    return p;
  }

  private rehash(): void {
    const keys = this.keys;
    const slots = this.slots;
    this.bits += 1;
    this.keys = new Float64Array(1 << this.bits);
    this.slots = new Int32Array(1 << this.bits);
    for (let h = 0; h < keys.length; h++) {
      if (keys[h] === 0) continue;
      const to = this.slotOf(keys[h]! - 1);
      this.keys[to] = keys[h]!;
      this.slots[to] = slots[h]!;
    }
  }

  /** Adds the rows of texts (separated by line feeds), the first being row, to the postings of their bigrams. */
  addTexts(texts: string, row: number): void {
    for (let k = 0; k + 1 < texts.length; k++) {
      const a = texts.charCodeAt(k);
      if (a === 10) {
        row += 1;
        continue;
      }
      const b = texts.charCodeAt(k + 1);
      if (a === 32 || b === 32 || b === 10) continue;
      const key = a * 65536 + b;
      const slot = this.slotOf(key);
      const p = this.keys[slot] === 0 ? this.create(slot, key) : this.slots[slot]!;
      if (this.last[p] === row) continue;
      let gap = row - this.last[p]!;
      this.last[p] = row;
      this.count[p]! += 1;
      let buf = this.data[p]!;
      let at = this.length[p]!;
      if (at + 5 > buf.length) {
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        this.data[p] = buf = bigger;
      }
      while (gap >= 0x80) {
        buf[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      buf[at++] = gap;
      this.length[p] = at;
    }
  }

  /** The rows of posting p, ascending. */
  rows(p: number): number[] {
    const buf = this.data[p]!;
    const end = this.length[p]!;
    const out: number[] = [];
    let row = -1;
    let k = 0;
    while (k < end) {
      let gap = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = buf[k++]!;
        gap += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      row += gap;
      out.push(row);
    }
    return out;
  }

  /** The postings as buffers (a snapshot): the table, the counts, and every posting's bytes one after another. */
  toBuffers(): { bits: number; postings: number; buffers: Uint8Array[] } {
    const n = this.data.length;
    const lengths = this.length.subarray(0, n);
    let total = 0;
    for (let p = 0; p < n; p++) total += lengths[p]!;
    const packed = new Uint8Array(total);
    let at = 0;
    for (let p = 0; p < n; p++) {
      packed.set(this.data[p]!.subarray(0, lengths[p]!), at);
      at += lengths[p]!;
    }
    return { bits: this.bits, postings: n, buffers: [bytesOf(this.keys), bytesOf(this.slots), bytesOf(lengths), bytesOf(this.count.subarray(0, n)), packed] };
  }

  /** Postings from toBuffers' output (finished: no row can be added). */
  static fromBuffers(bits: number, postings: number, buffers: Uint8Array[]): BigramPostings {
    const [keys, slots, lengths, count, packed] = buffers;
    const b = new BigramPostings();
    b.bits = bits;
    b.keys = typedOf(Float64Array, keys!, 1 << bits);
    b.slots = typedOf(Int32Array, slots!, 1 << bits);
    b.length = typedOf(Int32Array, lengths!, postings);
    b.count = typedOf(Int32Array, count!, postings);
    b.last = new Int32Array(0);
    let at = 0;
    for (let p = 0; p < postings; p++) {
      const n = b.length[p]!;
      if (at + n > packed!.length) throw new Error('search index snapshot: the postings are shorter than their lengths');
      b.data.push(packed!.subarray(at, at + n));
      at += n;
    }
    let bytes = b.keys.byteLength + b.slots.byteLength + 3 * b.length.byteLength;
    for (let p = 0; p < postings; p++) bytes += b.length[p]! + 80;
    b.bytes = bytes;
    return b;
  }

  /** Buffers trimmed to their length; the memory counted. */
  finish(): void {
    let bytes = this.keys.byteLength + this.slots.byteLength + 3 * this.length.byteLength;
    for (let p = 0; p < this.data.length; p++) {
      const n = this.length[p]!;
      if (this.data[p]!.length > n) this.data[p] = this.data[p]!.slice(0, n);
      bytes += n + 80;
    }
    this.bytes = bytes;
  }

  /** An estimate while the postings grow: their buffers and a fixed cost each. */
  estimate(): number {
    let bytes = this.keys.byteLength + this.slots.byteLength + 3 * this.length.byteLength;
    for (const d of this.data) bytes += d.length + 80;
    return bytes;
  }
}

/** The first box's circle, and how far boxes grow without a radius before geokdbush's walk takes over. */
const BOX_START_M = 250;
const BOX_MAX_M = 100_000;
const BOX_ROWS_MAX = 20_000;
/**
 * The most rows the nearest-first walk reads in one round. Ties are ordered by id, so a search at a
 * point shared by thousands of POIs must read them all, and the walk restarts with four times as
 * many each round: 100,000 POIs at one point took 0.97 s of this thread per search, 10,000 took
 * 27 ms (both on a loaded machine). Past this (or for a page deeper than it) the search is left
 * to PostgreSQL, which reads them in its own process and leaves this thread free.
 */
const WALK_ROWS_MAX = 4_096;

/** Past this many candidates in the rarest bigram's postings, a keyword search walks nearest first instead. */
const POSTINGS_SCAN_MAX = 20_000;
/** How rows are found (tests try each way): postings up to this many rows, boxes before geokdbush's walk. */
const tuning = { postingsScanMax: POSTINGS_SCAN_MAX, boxes: true };
/** Tests: Partial settings; undefined restores the defaults. */
export function tuneIndexSearch(t?: Partial<typeof tuning>): void {
  Object.assign(tuning, { postingsScanMax: POSTINGS_SCAN_MAX, boxes: true }, t);
}

/**
 * One match: its order key, and where its answer is (a base row, or a row written since the
 * build); the answer is written only for the rows a page shows (DatasetIndex.answerOf).
 */
export interface Match {
  knn: number;
  id: string;
  /** The base row, or -1 for a row of the side map. */
  row: number;
  extra?: ExtraRow;
  from: DatasetIndex;
}

/**
 * A match's answer: its UTF-8 bytes where the index keeps them (json[start, end): the whole
 * answer but its closing distance), and the ASCII run written for the search.
 */
export interface AnswerParts {
  json: Buffer;
  start: number;
  end: number;
  distance: string;
}

/**
 * The answers as one JSON array between two ASCII strings (the envelope around it), written into
 * one buffer: no small buffer per part, and sent as it is (no decoding into a string and encoding
 * again on the socket).
 */
export function answersJson(answers: AnswerParts[], before = '', after = ''): Buffer {
  let size = before.length + 2 + Math.max(0, answers.length - 1) + after.length;
  for (const a of answers) size += a.end - a.start + a.distance.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(before, 0, 'latin1');
  out[at++] = 0x5b; // [
  for (let k = 0; k < answers.length; k++) {
    const a = answers[k]!;
    if (k) out[at++] = 0x2c; // ,
    at += a.json.copy(out, at, a.start, a.end);
    at += out.write(a.distance, at, 'latin1');
  }
  out[at++] = 0x5d; // ]
  at += out.write(after, at, 'latin1');
  return out;
}

/** A row written since the build: its answer (but the distance) as one UTF-8 buffer. */
interface ExtraRow {
  row: IndexRow;
  x: number;
  y: number;
  z: number;
  json: Buffer;
}

/** The first matches of a search and how many there are, counted up to a bound. */
export interface Nearest {
  matches: Match[];
  counted: number;
}

/** A POI as a change brings it. */
export interface IndexRow {
  id: string;
  latitude: number;
  longitude: number;
  /** The POI's answer (toPoi) as JSON up to the name, and from the address on without the closing brace. */
  head: string;
  tail: string;
  /** search_text as stored. */
  text: string;
}

/**
 * One build page as PostgreSQL aggregates it (search-index's page query): each list in the
 * page's order. Aggregated, a page costs the driver a few strings instead of a row object per
 * POI, and its answers and texts become one buffer each.
 */
export interface IndexPage {
  count: number;
  /** The ids, 36 characters each. */
  ids: string;
  /** latitude,longitude,… as PostgreSQL writes float8 (shortest exact: parsed back to the same numbers). */
  coords: string;
  /** Each row's answer head then tail, and their lengths in bytes (head,tail,…). */
  json: string;
  jsonLengths: string;
  /** Each row's search_text followed by a line feed (line feeds inside it made spaces), and their lengths in bytes. */
  texts: string;
  textLengths: string;
}

/** Bytes an id string costs in V8 (header and 36 one-byte characters, rounded). */
const ID_BYTES = 56;

/**
 * Where the row loops put the rows they find (KNN value, row), and firstOf's sort: one search runs
 * at a time on this thread and firstOf is done with them before it returns, so they are reused
 * instead of allocated per search.
 */
const scratch = { knn: new Float64Array(1024), rows: new Uint32Array(1024), sort: new Float64Array(1024) };

function reserveScratch(n: number): void {
  if (n <= scratch.knn.length) return;
  const size = Math.max(n, 2 * scratch.knn.length);
  scratch.knn = new Float64Array(size);
  scratch.rows = new Uint32Array(size);
  scratch.sort = new Float64Array(size);
}

/** The search order: KNN value, then poi_id. */
export const byKey = (a: Match, b: Match) => a.knn - b.knn || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A typed array that grows by doubling. */
function grow<T extends Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer>>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * The coordinates' run of an answer, between its head and tail: the numbers in JavaScript's
 * format, as JSON.stringify writes them on the SQL path (written once, not per search).
 */
const coordinatesJson = (lat: number, lon: number) => `,"latitude":${lat},"longitude":${lon}`;

/** Numbers of a comma-separated list. */
function numbers(list: string): number[] {
  return list.split(',').map(Number);
}

/**
 * Collects a dataset's pages, doing each row's work as its page arrives (the build's cost spread
 * over its pages, so the server keeps answering), then builds the index in one step: kdbush's
 * sort, the only part that takes the whole dataset at once.
 */
export class DatasetIndexBuilder {
  readonly ids: string[] = [];
  readonly position = new Map<string, number>();
  lat = new Float64Array(1024);
  lon = new Float64Array(1024);
  cube = new Float64Array(3 * 1024);
  /** Per page, its answers and its search texts; per row, its page and where its parts are in them. */
  readonly jsonChunks: Buffer[] = [];
  readonly textChunks: Buffer[] = [];
  chunkOf = new Uint32Array(1024);
  jsonStart = new Uint32Array(1024);
  jsonEnd = new Uint32Array(1024);
  textStart = new Uint32Array(1024);
  textEnd = new Uint32Array(1024);
  /** The rows of each bigram of the search texts. */
  readonly postings = new BigramPostings();
  /** Rows whose POI came again in a later page (moved within the table during the build): dead from the start. */
  readonly superseded: number[] = [];
  private chunkBytes = 0;
  private postingBytes = 0;

  constructor(readonly datasetId: string) {}

  get count(): number {
    return this.ids.length;
  }

  get bytes(): number {
    return this.chunkBytes + this.postingBytes + this.ids.length * ROW_BYTES;
  }

  add(page: IndexPage): void {
    const at = this.ids.length;
    const n = page.count;
    const need = at + n;
    this.lat = grow(this.lat, need);
    this.lon = grow(this.lon, need);
    this.cube = grow(this.cube, 3 * need);
    for (const k of ['chunkOf', 'jsonStart', 'jsonEnd', 'textStart', 'textEnd'] as const) this[k] = grow(this[k], need);
    const coords = numbers(page.coords);
    const jsonLengths = numbers(page.jsonLengths);
    const textLengths = numbers(page.textLengths);
    const chunk = this.jsonChunks.length;
    const pageJson = Buffer.from(page.json);
    // Each answer is written whole: head, coordinates, tail (the coordinates' runs are ASCII).
    const runs: string[] = new Array(n);
    let runBytes = 0;
    for (let k = 0; k < n; k++) runBytes += (runs[k] = coordinatesJson(coords[2 * k]!, coords[2 * k + 1]!)).length;
    const json = Buffer.allocUnsafe(pageJson.length + runBytes);
    let pageAt = 0;
    let jsonAt = 0;
    let textAt = 0;
    for (let k = 0; k < n; k++) {
      const i = at + k;
      const id = page.ids.slice(36 * k, 36 * k + 36);
      const before = this.position.get(id);
      if (before !== undefined) this.superseded.push(before);
      this.ids.push(id);
      this.position.set(id, i);
      const lat = coords[2 * k]!;
      const lon = coords[2 * k + 1]!;
      this.lat[i] = lat;
      this.lon[i] = lon;
      const [x, y, z] = cubeOf(lat, lon);
      this.cube[3 * i] = x;
      this.cube[3 * i + 1] = y;
      this.cube[3 * i + 2] = z;
      this.chunkOf[i] = chunk;
      this.jsonStart[i] = jsonAt;
      const head = jsonLengths[2 * k]!;
      const tail = jsonLengths[2 * k + 1]!;
      jsonAt += pageJson.copy(json, jsonAt, pageAt, pageAt + head);
      jsonAt += json.write(runs[k]!, jsonAt, 'latin1');
      jsonAt += pageJson.copy(json, jsonAt, pageAt + head, pageAt + head + tail);
      pageAt += head + tail;
      this.jsonEnd[i] = jsonAt;
      this.textStart[i] = textAt;
      textAt += textLengths[k]!;
      this.textEnd[i] = textAt;
      textAt += 1;
    }
    const texts = Buffer.from(page.texts);
    if (pageJson.length !== pageAt || json.length !== jsonAt || texts.length !== textAt) throw new Error('search index: the lengths of a page do not match its text');
    this.jsonChunks.push(json);
    this.textChunks.push(texts);
    this.chunkBytes += json.length + texts.length + 32;
    this.postings.addTexts(page.texts, at);
    this.postingBytes = this.postings.estimate();
  }

  finish(): DatasetIndex {
    this.postings.finish();
    this.postingBytes = this.postings.bytes;
    return DatasetIndex.fromBuilder(this);
  }
}

/** The layout's version: a snapshot of another is refused (and the dataset built from PostgreSQL). */
export const SNAPSHOT_FORMAT = 1;

/** What a snapshot holds beside its buffers: plain JSON values. */
export interface DatasetIndexSnapshotHeader {
  format: number;
  datasetId: string;
  /** Base rows (live or dead). */
  rows: number;
  deadCount: number;
  chunks: number;
  postingsBits: number;
  postings: number;
  baseBytes: number;
  /** Rows written since the build, as their changes brought them. */
  extra: IndexRow[];
}

/** A built DatasetIndex as bytes (toSnapshot, fromSnapshot). */
export interface DatasetIndexSnapshot {
  header: DatasetIndexSnapshotHeader;
  buffers: Uint8Array[];
}

/** A typed array's bytes, not copied. */
function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

type TypedArrayOf<T> = T extends new (buffer: ArrayBuffer, byteOffset: number, length: number) => infer A ? A : never;

/** A typed array of `length` elements over these bytes: in place when aligned, else a copy; throws when the bytes are too few or too many. */
function typedOf<C extends Float64ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor | Uint8ArrayConstructor>(Type: C, bytes: Uint8Array, length: number): TypedArrayOf<C> {
  if (bytes.byteLength !== length * Type.BYTES_PER_ELEMENT) throw new Error(`search index snapshot: ${bytes.byteLength} bytes where ${length} ${Type.name} elements were expected`);
  // A copy (Buffer's slice would be a view at the same offset).
  const aligned = bytes.byteOffset % Type.BYTES_PER_ELEMENT === 0 ? bytes : new Uint8Array(bytes);
  return new Type(aligned.buffer as ArrayBuffer, aligned.byteOffset, length) as TypedArrayOf<C>;
}

/** What a DatasetIndex is made of (built, or read from a snapshot). */
interface IndexParts {
  datasetId: string;
  tree: KDBush;
  ids: string[];
  position: Map<string, number>;
  lat: Float64Array;
  lon: Float64Array;
  cube: Float64Array;
  rowOf: Uint32Array;
  posOf: Uint32Array;
  jsonChunks: Buffer[];
  textChunks: Buffer[];
  chunkOf: Uint32Array;
  jsonStart: Uint32Array;
  jsonEnd: Uint32Array;
  textStart: Uint32Array;
  textEnd: Uint32Array;
  postings: BigramPostings;
  dead: Uint8Array;
  deadCount: number;
  baseBytes: number;
}

/** Per row beyond its strings: the id string and its map entry, nine doubles, five offsets, kdbush's coordinates and id, and the tree order's two maps. */
const ROW_BYTES = ID_BYTES + 40 + 8 * 9 + 4 * 5 + 16 + 4 + 8;

export class DatasetIndex {
  readonly datasetId: string;
  private readonly tree: KDBush;
  private readonly ids: string[];
  /** Where each base row is (its id's position in the arrays). */
  private readonly position: Map<string, number>;
  private readonly lat: Float64Array;
  private readonly lon: Float64Array;
  /** The cube points by tree position (chordOf reads them through posOf). */
  private readonly cube: Float64Array;
  /** The row at each tree position, and the tree position of each row. */
  private readonly rowOf: Uint32Array;
  private readonly posOf: Uint32Array;
  private readonly jsonChunks: Buffer[];
  private readonly textChunks: Buffer[];
  private readonly chunkOf: Uint32Array;
  private readonly jsonStart: Uint32Array;
  private readonly jsonEnd: Uint32Array;
  private readonly textStart: Uint32Array;
  private readonly textEnd: Uint32Array;
  private readonly postings: BigramPostings;
  /** Removed rows, by tree position (read in the boxes' loop next to the cube points). */
  private readonly dead: Uint8Array;
  private deadCount = 0;
  /** Rows written since the build (inserted or changed), by id. */
  private readonly extra = new Map<string, ExtraRow>();
  private extraBytes = 0;
  readonly baseBytes: number;

  constructor(p: IndexParts) {
    this.datasetId = p.datasetId;
    this.tree = p.tree;
    this.ids = p.ids;
    this.position = p.position;
    this.lat = p.lat;
    this.lon = p.lon;
    this.cube = p.cube;
    this.rowOf = p.rowOf;
    this.posOf = p.posOf;
    this.jsonChunks = p.jsonChunks;
    this.textChunks = p.textChunks;
    this.chunkOf = p.chunkOf;
    this.jsonStart = p.jsonStart;
    this.jsonEnd = p.jsonEnd;
    this.textStart = p.textStart;
    this.textEnd = p.textEnd;
    this.postings = p.postings;
    this.dead = p.dead;
    this.deadCount = p.deadCount;
    this.baseBytes = p.baseBytes;
  }

  /** The index built from a builder's rows: kdbush's sort, and the cube points put in its order. */
  static fromBuilder(b: DatasetIndexBuilder): DatasetIndex {
    const n = b.ids.length;
    const tree = new KDBush(Math.max(n, 1));
    for (let i = 0; i < n; i++) tree.add(b.lon[i]!, b.lat[i]!);
    // kdbush cannot hold zero items: an empty dataset holds one point that is always dead.
    if (n === 0) tree.add(0, 0);
    tree.finish();
    // The tree answers with positions in its own (spatial) order, and the cube points are kept in
    // that order: the rows of a box are then a few runs of adjacent memory, not a cache miss each
    // (the boxes' loop was bound by those misses). Rows keep their numbers (postings, texts and
    // answers refer to them); rowOf and posOf translate.
    const treeIds = tree.ids;
    const size = treeIds.length;
    const rowOf = Uint32Array.from(treeIds);
    const posOf = new Uint32Array(size);
    const cube = new Float64Array(3 * size);
    for (let p = 0; p < size; p++) {
      const i = rowOf[p]!;
      posOf[i] = p;
      treeIds[p] = p;
      if (i < n) {
        cube[3 * p] = b.cube[3 * i]!;
        cube[3 * p + 1] = b.cube[3 * i + 1]!;
        cube[3 * p + 2] = b.cube[3 * i + 2]!;
      }
    }
    const dead = new Uint8Array(Math.max(n, 1));
    let deadCount = 0;
    if (n === 0) dead[0] = 1;
    for (const i of b.superseded) {
      dead[posOf[i]!] = 1;
      deadCount += 1;
    }
    return new DatasetIndex({
      datasetId: b.datasetId,
      tree,
      ids: b.ids,
      position: b.position,
      lat: b.lat,
      lon: b.lon,
      cube,
      rowOf,
      posOf,
      jsonChunks: b.jsonChunks,
      textChunks: b.textChunks,
      chunkOf: b.chunkOf,
      jsonStart: b.jsonStart,
      jsonEnd: b.jsonEnd,
      textStart: b.textStart,
      textEnd: b.textEnd,
      postings: b.postings,
      dead,
      deadCount,
      // ROW_BYTES counts kdbush's coordinates and ids and the two maps: the count is the builder's
      // running one (a build that fit while it read its pages fits once finished).
      baseBytes: b.bytes,
    });
  }

  /**
   * The index as bytes, for a snapshot on disk (h6's index-snapshot.ts writes them, fromSnapshot
   * reads them back): a header of plain JSON values and a list of buffers, each a view of the
   * index's own memory (nothing copied but the ids and the postings, which are not one buffer in
   * memory). Rows written since the build (the side map) are in the header. The header's format
   * changes whenever the layout does; fromSnapshot refuses any other.
   */
  toSnapshot(): DatasetIndexSnapshot {
    const chunks = this.jsonChunks.length;
    const postings = this.postings.toBuffers();
    const header: DatasetIndexSnapshotHeader = {
      format: SNAPSHOT_FORMAT,
      datasetId: this.datasetId,
      rows: this.ids.length,
      deadCount: this.deadCount,
      chunks,
      postingsBits: postings.bits,
      postings: postings.postings,
      baseBytes: this.baseBytes,
      extra: [...this.extra.values()].map((e) => e.row),
    };
    const ids = Buffer.from(this.ids.join(''), 'latin1');
    const n = this.ids.length;
    const buffers: Uint8Array[] = [
      new Uint8Array(this.tree.data),
      ids,
      bytesOf(this.lat.subarray(0, n)),
      bytesOf(this.lon.subarray(0, n)),
      bytesOf(this.cube),
      bytesOf(this.rowOf),
      bytesOf(this.posOf),
      bytesOf(this.chunkOf.subarray(0, n)),
      bytesOf(this.jsonStart.subarray(0, n)),
      bytesOf(this.jsonEnd.subarray(0, n)),
      bytesOf(this.textStart.subarray(0, n)),
      bytesOf(this.textEnd.subarray(0, n)),
      this.dead,
      ...this.jsonChunks,
      ...this.textChunks,
      ...postings.buffers,
    ];
    return { header, buffers };
  }

  /**
   * An index from toSnapshot's output, as it was (the side map included). Throws on a snapshot of
   * another format or whose buffers do not fit its header (the caller builds from PostgreSQL
   * instead). Buffers aligned to their element size (8 bytes is always enough) are used in place;
   * others are copied.
   */
  static fromSnapshot(s: DatasetIndexSnapshot): DatasetIndex {
    const h = s.header;
    if (h?.format !== SNAPSHOT_FORMAT) throw new Error(`search index snapshot: format ${String(h?.format)}, this server reads ${SNAPSHOT_FORMAT}`);
    const n = h.rows;
    const size = Math.max(n, 1);
    const want = 13 + 2 * h.chunks + 5;
    if (!Number.isInteger(n) || n < 0 || s.buffers.length !== want) throw new Error(`search index snapshot: ${s.buffers.length} buffers, the header says ${want}`);
    const b = s.buffers;
    const treeBytes = b[0]!;
    // kdbush reads its own ArrayBuffer from offset 0.
    const treeData = treeBytes.byteOffset === 0 && treeBytes.byteLength === treeBytes.buffer.byteLength ? (treeBytes.buffer as ArrayBuffer) : new Uint8Array(treeBytes).buffer;
    const tree = KDBush.from(treeData);
    if (tree.numItems !== size) throw new Error('search index snapshot: the tree does not hold the header\'s rows');
    const idText = Buffer.from(b[1]!.buffer, b[1]!.byteOffset, b[1]!.byteLength).toString('latin1');
    if (idText.length !== 36 * n) throw new Error('search index snapshot: the ids do not match the header\'s rows');
    const ids: string[] = new Array(n);
    const position = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const id = idText.slice(36 * i, 36 * i + 36);
      ids[i] = id;
      position.set(id, i);
    }
    const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    const jsonChunks = b.slice(13, 13 + h.chunks).map(asBuffer);
    const textChunks = b.slice(13 + h.chunks, 13 + 2 * h.chunks).map(asBuffer);
    const index = new DatasetIndex({
      datasetId: h.datasetId,
      tree,
      ids,
      position,
      lat: typedOf(Float64Array, b[2]!, n),
      lon: typedOf(Float64Array, b[3]!, n),
      cube: typedOf(Float64Array, b[4]!, 3 * size),
      rowOf: typedOf(Uint32Array, b[5]!, size),
      posOf: typedOf(Uint32Array, b[6]!, size),
      jsonChunks,
      textChunks,
      chunkOf: typedOf(Uint32Array, b[7]!, n),
      jsonStart: typedOf(Uint32Array, b[8]!, n),
      jsonEnd: typedOf(Uint32Array, b[9]!, n),
      textStart: typedOf(Uint32Array, b[10]!, n),
      textEnd: typedOf(Uint32Array, b[11]!, n),
      dead: typedOf(Uint8Array, b[12]!, size),
      postings: BigramPostings.fromBuffers(h.postingsBits, h.postings, b.slice(13 + 2 * h.chunks)),
      deadCount: h.deadCount,
      baseBytes: h.baseBytes,
    });
    for (let i = 0; i < n; i++) {
      const c = index.chunkOf[i]!;
      if (c >= h.chunks || index.jsonEnd[i]! > jsonChunks[c]!.length || index.textEnd[i]! > textChunks[c]!.length) throw new Error('search index snapshot: a row lies outside its chunk');
    }
    for (const row of h.extra) index.upsert(row);
    return index;
  }

  /** POIs this index answers with. */
  get size(): number {
    return this.ids.length - this.deadCount + this.extra.size;
  }

  /** Memory held, in bytes (an estimate of the strings' overhead, exact for buffers and arrays). */
  get bytes(): number {
    return this.baseBytes + this.extraBytes;
  }

  /** Writes applied since the build: past a point a rebuild is cheaper than the side map. */
  get churn(): number {
    return this.deadCount + this.extra.size;
  }

  private baseIndexOf(id: string): number {
    return this.position.get(id) ?? -1;
  }

  private static extraCost(e: ExtraRow): number {
    return e.json.length + 2 * e.row.text.length + 2 * ID_BYTES + 200;
  }

  /** A POI inserted into this dataset or changed in it. */
  upsert(row: IndexRow): void {
    this.remove(row.id);
    const [x, y, z] = cubeOf(row.latitude, row.longitude);
    const json = Buffer.from(row.head + coordinatesJson(row.latitude, row.longitude) + row.tail);
    const e = { row, x, y, z, json };
    this.extra.set(row.id, e);
    this.extraBytes += DatasetIndex.extraCost(e);
  }

  /** A POI deleted or moved out of this dataset. */
  remove(id: string): void {
    const e = this.extra.get(id);
    if (e) {
      this.extra.delete(id);
      this.extraBytes -= DatasetIndex.extraCost(e);
    }
    const i = this.baseIndexOf(id);
    if (i >= 0 && !this.dead[this.posOf[i]!]) {
      this.dead[this.posOf[i]!] = 1;
      this.deadCount += 1;
    }
  }

  private chord(x: number, y: number, z: number, q: PreparedQuery): number {
    // cube_distance: the squares summed dimension by dimension, then the root.
    const d0 = x - q.cx;
    const d1 = y - q.cy;
    const d2 = z - q.cz;
    let s = d0 * d0;
    s += d1 * d1;
    s += d2 * d2;
    return Math.sqrt(s);
  }

  private chordOf(i: number, q: PreparedQuery): number {
    const p = this.posOf[i]!;
    return this.chord(this.cube[3 * p]!, this.cube[3 * p + 1]!, this.cube[3 * p + 2]!, q);
  }

  /** Whether a row at this chord is inside the query's radius (the SQL filter's comparison). */
  private inRadius(chord: number, q: PreparedQuery): boolean {
    return q.limitEd === undefined || chordToEarthDistance(chord) <= q.limitEd;
  }

  /** Whether a row at this chord and id comes after the query's cursor. */
  private afterKey(chord: number, id: string, q: PreparedQuery): boolean {
    const a = q.after;
    return !a || chord > a.hi || (chord >= a.lo && id > a.id);
  }

  /** Whether base row i lies inside the query's bbox (none: every row). */
  private inBox(i: number, q: PreparedQuery): boolean {
    const b = q.bbox;
    if (!b) return true;
    const lat = this.lat[i]!;
    const lon = this.lon[i]!;
    return lon >= b[0] && lat >= b[1] && lon <= b[2] && lat <= b[3];
  }

  /** Whether base row i's search text holds every word of the query. */
  private matchesWords(i: number, q: PreparedQuery): boolean {
    if (!q.wordBytes.length) return true;
    const text = this.textChunks[this.chunkOf[i]!]!.subarray(this.textStart[i]!, this.textEnd[i]!);
    for (const w of q.wordBytes) if (text.indexOf(w) < 0) return false;
    return true;
  }

  private matchOf(knn: number, i: number): Match {
    return { knn, id: this.ids[i]!, row: i, from: this };
  }

  /**
   * A match's answer as PostgreSQL's path writes it: `head,"latitude":…,"longitude":…tail,"distance_m":…}`
   * (distance_m is earth_distance × EARTHDISTANCE_TO_MEAN): the UTF-8 bytes kept up to the distance,
   * and the ASCII run written for the search.
   */
  answerOf(m: Match): AnswerParts {
    // Finite numbers: a template writes them as JSON.stringify does, for less.
    const distance = `,"distance_m":${chordToEarthDistance(m.knn) * EARTHDISTANCE_TO_MEAN}}`;
    if (m.extra) return { json: m.extra.json, start: 0, end: m.extra.json.length, distance };
    const i = m.row;
    return { json: this.jsonChunks[this.chunkOf[i]!]!, start: this.jsonStart[i]!, end: this.jsonEnd[i]!, distance };
  }

  /**
   * The postings to read for the query's words: the smallest of all their bigrams' (null when a
   * bigram occurs in no base row, so no base row matches); undefined when walking is cheaper (no
   * word of two code units, or even the smallest postings are long).
   */
  private rarestPosting(q: PreparedQuery): number | null | undefined {
    let best = -1;
    for (const word of q.words ?? []) {
      for (const key of bigramsOf(word)) {
        const p = this.postings.find(key);
        if (p < 0) return null;
        if (best < 0 || this.postings.count[p]! < this.postings.count[best]!) best = p;
      }
    }
    return best >= 0 && this.postings.count[best]! <= tuning.postingsScanMax ? best : undefined;
  }

  /**
   * The first `n` matches in (KNN value, id) order, and the number of matches counted up to
   * `count`: a page and its capped total from one look (only the page's rows are ranked).
   */
  search(q: PreparedQuery, n: number, count: number): Nearest | undefined {
    const want = Math.max(n, count);
    const posting = q.wordBytes.length ? this.rarestPosting(q) : undefined;
    let base: Nearest;
    if (posting === undefined) {
      const boxed = tuning.boxes ? this.boxes(q, n, want) : undefined;
      const walked = boxed ? undefined : this.walk(q, want);
      if (!boxed && !walked) return undefined;
      base = boxed ?? this.firstOfSorted(walked!, n, count);
    } else {
      base = posting === null ? { matches: [], counted: 0 } : this.scan(q, n, count, posting);
    }
    if (!this.extra.size) return { matches: base.matches, counted: Math.min(base.counted, count) };
    let counted = base.counted;
    const matches = base.matches;
    for (const e of this.extra.values()) {
      const c = this.chord(e.x, e.y, e.z, q);
      const b = q.bbox;
      const inBox = !b || (e.row.longitude >= b[0] && e.row.latitude >= b[1] && e.row.longitude <= b[2] && e.row.latitude <= b[3]);
      if (inBox && this.inRadius(c, q) && this.afterKey(c, e.row.id, q) && (q.words ?? []).every((w) => e.row.text.includes(w))) {
        matches.push({ knn: c, id: e.row.id, row: -1, extra: e, from: this });
        counted += 1;
      }
    }
    matches.sort(byKey);
    return { matches: matches.slice(0, n), counted: Math.min(counted, count) };
  }

  /** A walk's sorted matches as a page of n and a count up to `count`. */
  private firstOfSorted(sorted: Match[], n: number, count: number): Nearest {
    return { matches: sorted.slice(0, n), counted: Math.min(sorted.length, count) };
  }

  /** The first n of the m rows found (scratch.knn, scratch.rows) in (KNN value, id) order, and their number up to `count`. */
  private firstOf(m: number, n: number, count: number): Nearest {
    const counted = Math.min(m, count);
    if (n === 0 || m === 0) return { matches: [], counted };
    const { knn, rows } = scratch;
    let bound = Infinity;
    if (m > n) {
      // The n-th smallest KNN value (ties counted): the n smallest kept in order in one pass (most
      // rows are past the n-th kept and cost one comparison); the rows up to it are sorted in full.
      const top = scratch.sort;
      let kept = 0;
      for (let k = 0; k < m; k++) {
        const v = knn[k]!;
        if (kept === n && v >= top[n - 1]!) continue;
        let at = kept < n ? kept++ : n - 1;
        while (at > 0 && top[at - 1]! > v) {
          top[at] = top[at - 1]!;
          at -= 1;
        }
        top[at] = v;
      }
      bound = top[n - 1]!;
    }
    const keep: number[] = [];
    for (let k = 0; k < m; k++) if (knn[k]! <= bound) keep.push(k);
    const ids = this.ids;
    keep.sort((a, b) => knn[a]! - knn[b]! || (ids[rows[a]!]! < ids[rows[b]!]! ? -1 : ids[rows[a]!]! > ids[rows[b]!]! ? 1 : 0));
    const matches: Match[] = [];
    for (let k = 0; k < keep.length && k < n; k++) matches.push(this.matchOf(knn[keep[k]!]!, rows[keep[k]!]!));
    return { matches, counted };
  }

  /**
   * The first n base matches, and their number up to `count` (≥ n), from boxes of the tree growing
   * around the point: the rows of a box holding the circle of b metres, those inside the circle
   * kept; once `count` of them match, or the circle covers the radius, no row outside can come
   * before them (and the count is exact or reached). Much cheaper than geokdbush's
   * walk where POIs are dense (no queue of nodes and points); undefined where a box would cross a
   * pole or the antimeridian, holds more than BOX_ROWS_MAX rows, or grows past BOX_MAX_M without a
   * radius (the walk answers).
   */
  private boxes(q: PreparedQuery, n: number, count: number): Nearest | undefined {
    const radius = q.radius;
    let b = BOX_START_M;
    for (;;) {
      const r = radius === undefined ? b : Math.min(b, radius);
      if (radius === undefined && r > BOX_MAX_M) return undefined;
      // The circle's angle, with room for rounding; the box around it on the sphere.
      const angle = (r / EARTH_MEAN_RADIUS_M) * (1 + 1e-6) + 1e-12;
      const dLat = angle / RADIANS_PER_DEGREE;
      const lat = q.latitude;
      if (Math.abs(lat) + dLat >= 89 || angle >= 0.5) return undefined;
      const cosMax = Math.cos((Math.abs(lat) + dLat) * RADIANS_PER_DEGREE);
      const dLon = (Math.asin(Math.min(1, Math.sin(angle) / cosMax)) / RADIANS_PER_DEGREE) * (1 + 1e-6);
      if (q.longitude - dLon <= -180 || q.longitude + dLon >= 180) return undefined;
      const found = this.tree.range(q.longitude - dLon, lat - dLat, q.longitude + dLon, lat + dLat);
      // A box this full (a deep cursor, or keyword matches far apart): the walk reads less.
      if (found.length > BOX_ROWS_MAX) return undefined;
      const limitEd = r * RADIUS_TO_EARTHDISTANCE;
      // The circle as a chord: rows clearly inside or outside are told without an asin; those
      // near the edge are compared as the SQL filter compares them.
      const limitChord = 2 * R * Math.sin(limitEd / (2 * R));
      const surelyIn = limitChord * (1 - 1e-9);
      const surelyOut = limitChord * (1 + 1e-9);
      reserveScratch(found.length);
      const { knn, rows } = scratch;
      let m = 0;
      const { dead, cube, rowOf } = this;
      const { cx, cy, cz, after } = q;
      const words = q.wordBytes.length > 0;
      const boxed = q.bbox !== undefined;
      for (let k = 0; k < found.length; k++) {
        // The tree's positions: adjacent ones are near in space and in memory.
        const p = found[k]!;
        if (dead[p]) continue;
        const i = rowOf[p]!;
        // chord(), inlined: the squares summed dimension by dimension, then the root.
        const d0 = cube[3 * p]! - cx;
        const d1 = cube[3 * p + 1]! - cy;
        const d2 = cube[3 * p + 2]! - cz;
        let sum = d0 * d0;
        sum += d1 * d1;
        sum += d2 * d2;
        const c = Math.sqrt(sum);
        if (c > surelyOut || (c >= surelyIn && chordToEarthDistance(c) > limitEd)) continue;
        if (after && !this.afterKey(c, this.ids[i]!, q)) continue;
        if (words && !this.matchesWords(i, q)) continue;
        if (boxed && !this.inBox(i, q)) continue;
        knn[m] = c;
        rows[m++] = i;
      }
      if (m >= count || (radius !== undefined && b >= radius)) return this.firstOf(m, n, count);
      // The next circle sized for `count` rows at the density seen (at least twice as wide).
      b *= Math.max(2, Math.min(8, Math.sqrt(count / Math.max(m, 1)) * 1.1));
    }
  }

  /** The first n base matches among the rows of a posting, each tested in full. */
  private scan(q: PreparedQuery, n: number, count: number, posting: number): Nearest {
    const candidates = this.postings.rows(posting);
    reserveScratch(candidates.length);
    const { knn, rows } = scratch;
    let m = 0;
    for (const i of candidates) {
      if (this.dead[this.posOf[i]!] || !this.matchesWords(i, q) || !this.inBox(i, q)) continue;
      const c = this.chordOf(i, q);
      if (this.inRadius(c, q) && this.afterKey(c, this.ids[i]!, q)) {
        knn[m] = c;
        rows[m++] = i;
      }
    }
    return this.firstOf(m, n, count);
  }

  /**
   * The first n base matches walking nearest first. geokdbush yields candidates nearest first by
   * its haversine; they are re-ordered by the chord. The cut is exact once the n-th match lies
   * closer than the last candidate read (every candidate not read is at least that far);
   * otherwise more candidates are read, up to WALK_ROWS_MAX a round (then undefined).
   */
  private walk(q: PreparedQuery, n: number): Match[] | undefined {
    // Only dead rows, rows before the cursor and rows without the words are skipped in the walk: a
    // row outside the radius must reach geokdbush's queue, whose first point past maxKm ends the
    // walk (a predicate that dropped them would make it expand every node of the tree).
    const rowOf = this.rowOf;
    const predicate = (p: number) => {
      if (this.dead[p]) return false;
      const i = rowOf[p]!;
      if (q.after && !this.afterKey(this.chordOf(i, q), this.ids[i]!, q)) return false;
      return this.inBox(i, q) && this.matchesWords(i, q);
    };
    const total = this.ids.length;
    const kmOf = (i: number) => haversineKm(q.longitude, q.latitude, this.lon[i]!, this.lat[i]!);
    for (let want = n + 32; ; want *= 4) {
      if (want > WALK_ROWS_MAX) return undefined;
      const found = around(this.tree, q.longitude, q.latitude, want, q.maxKm, predicate).map((p) => rowOf[p]!);
      const matches: Match[] = [];
      let outsideKm = Infinity;
      for (const i of found) {
        const c = this.chordOf(i, q);
        if (this.inRadius(c, q)) matches.push(this.matchOf(c, i));
        else outsideKm = Math.min(outsideKm, kmOf(i));
      }
      matches.sort(byKey);
      // Exact when the walk ran out (nothing else within maxKm), when every row not read lies
      // farther than a row already outside the radius, or when the n-th match lies closer than
      // the last row read (every row not read is at least that far).
      const lastKm = found.length ? kmOf(found[found.length - 1]!) : 0;
      const done =
        found.length < want ||
        want >= total ||
        lastKm > outsideKm + 1e-9 ||
        (matches.length >= n && kmOf(matches[n - 1]!.row) < lastKm - 1e-9);
      if (done) return matches.slice(0, n);
    }
  }

  // The type-ahead's view of the rows (suggest-index.ts): it keeps its own keys beside this index.

  /** Base rows (live or dead). */
  get baseRows(): number {
    return this.ids.length;
  }

  /** Base row i's answer as JSON without its closing brace, and its search text. */
  baseRowJson(i: number): string {
    return this.jsonChunks[this.chunkOf[i]!]!.toString('utf8', this.jsonStart[i]!, this.jsonEnd[i]!);
  }

  baseRowText(i: number): string {
    return this.textChunks[this.chunkOf[i]!]!.toString('utf8', this.textStart[i]!, this.textEnd[i]!);
  }

  isLive(i: number): boolean {
    return !this.dead[this.posOf[i]!];
  }

  idOf(i: number): string {
    return this.ids[i]!;
  }

  /** The chord from base row i, or a row written since the build, to a cube point (the search's order key). */
  chordFrom(i: number, cx: number, cy: number, cz: number): number {
    // chord()'s arithmetic, in the same order, without a query object per row.
    const p = 3 * this.posOf[i]!;
    const d0 = this.cube[p]! - cx;
    const d1 = this.cube[p + 1]! - cy;
    const d2 = this.cube[p + 2]! - cz;
    let s = d0 * d0;
    s += d1 * d1;
    s += d2 * d2;
    return Math.sqrt(s);
  }

  /** Rows written since the build: their row as the change brought it, cube point and answer. */
  writtenRows(): Iterable<{ row: IndexRow; x: number; y: number; z: number; json: Buffer }> {
    return this.extra.values();
  }

  /**
   * Up to `want` live base rows that `accept` takes, nearest first by geokdbush's haversine (which
   * orders as the chord does but for rounding; callers re-order by chordFrom).
   */
  nearestRows(latitude: number, longitude: number, want: number, accept: (row: number) => boolean): number[] {
    const rowOf = this.rowOf;
    return around(this.tree, longitude, latitude, want, Infinity, (p: number) => !this.dead[p] && accept(rowOf[p]!)).map((p) => rowOf[p]!);
  }

  /** Base row i's answer bytes (without the closing brace) followed by `rest`. */
  baseAnswer(i: number, rest: string): AnswerParts {
    return { json: this.jsonChunks[this.chunkOf[i]!]!, start: this.jsonStart[i]!, end: this.jsonEnd[i]!, distance: rest };
  }
}
