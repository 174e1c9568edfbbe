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
  /** The cursor's id as 16 bytes (compared with the rows' ids). */
  afterId?: Uint8Array;
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
    afterId: after ? idBytesOf(after.id) : undefined,
  };
}

/** Hexadecimal digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** A uuid's 16 bytes (written at `at`); false when the text is not a lowercase uuid (no row has that id). */
function writeIdBytes(text: string, from: number, out: Uint8Array, at: number): boolean {
  if (text.length < from + 36) return false;
  let k = 0;
  for (let b = 0; b < 16; b++) {
    if (k === 8 || k === 13 || k === 18 || k === 23) {
      if (text.charCodeAt(from + k) !== 45) return false;
      k += 1;
    }
    const hi = nibble(text.charCodeAt(from + k));
    const lo = nibble(text.charCodeAt(from + k + 1));
    if (hi < 0 || lo < 0) return false;
    out[at + b] = hi * 16 + lo;
    k += 2;
  }
  return true;
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** A uuid's bytes, or undefined when it is not one. */
function idBytesOf(id: string): Uint8Array | undefined {
  const out = new Uint8Array(16);
  return id.length === 36 && writeIdBytes(id, 0, out, 0) ? out : undefined;
}

/** The uuid text of the 16 bytes at `at` (lowercase: as PostgreSQL writes it). */
function idTextAt(ids: Uint8Array, at: number): string {
  return (
    HEX[ids[at]!]! + HEX[ids[at + 1]!]! + HEX[ids[at + 2]!]! + HEX[ids[at + 3]!]! + '-' + HEX[ids[at + 4]!]! + HEX[ids[at + 5]!]! + '-' + HEX[ids[at + 6]!]! + HEX[ids[at + 7]!]! + '-' +
    HEX[ids[at + 8]!]! + HEX[ids[at + 9]!]! + '-' + HEX[ids[at + 10]!]! + HEX[ids[at + 11]!]! + HEX[ids[at + 12]!]! + HEX[ids[at + 13]!]! + HEX[ids[at + 14]!]! + HEX[ids[at + 15]!]!
  );
}

/** Byte order of two ids: the order of their uuid texts (lowercase hex) and PostgreSQL's uuid order. */
function compareIdBytes(a: Uint8Array, ai: number, b: Uint8Array, bi: number): number {
  for (let k = 0; k < 16; k++) {
    const d = a[ai + k]! - b[bi + k]!;
    if (d) return d;
  }
  return 0;
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
  /**
   * Postings past this many rows keep only their count (their rows are never read: a word whose
   * rarest bigram is that common is found by walking the tree).
   */
  constructor(private readonly keepMax = Infinity) {}

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
      if (this.count[p]! > this.keepMax) {
        if (this.length[p]! >= 0) {
          this.length[p] = -1;
          this.data[p] = EMPTY_POSTING;
        }
        continue;
      }
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

  /** Whether posting p kept only its count (more rows than keepMax). */
  dropped(p: number): boolean {
    return this.length[p]! < 0;
  }

  /** The rows of posting p, ascending (none for a dropped posting). */
  rows(p: number): number[] {
    const buf = this.data[p]!;
    const end = Math.max(0, this.length[p]!);
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
    for (let p = 0; p < n; p++) total += Math.max(0, lengths[p]!);
    const packed = new Uint8Array(total);
    let at = 0;
    for (let p = 0; p < n; p++) {
      const len = Math.max(0, lengths[p]!);
      packed.set(this.data[p]!.subarray(0, len), at);
      at += len;
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
      const n = Math.max(0, b.length[p]!);
      if (at + n > packed!.length) throw new Error('search index snapshot: the postings are shorter than their lengths');
      b.data.push(packed!.subarray(at, at + n));
      at += n;
    }
    if (at !== packed!.length) throw new Error('search index snapshot: the postings are longer than their lengths');
    b.bytes = b.keys.byteLength + b.slots.byteLength + 2 * b.length.byteLength + packed!.byteLength + 80 * postings;
    return b;
  }

  /** Buffers trimmed to their length; the memory counted. */
  finish(): void {
    let bytes = this.keys.byteLength + this.slots.byteLength + 3 * this.length.byteLength;
    for (let p = 0; p < this.data.length; p++) {
      const n = Math.max(0, this.length[p]!);
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

const EMPTY_POSTING = new Uint8Array(0);

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
 * A match's answer: its UTF-8 bytes (json[start, end): the whole
 * answer but its closing distance), and the ASCII run written for the search.
 */
export interface AnswerParts {
  json: Buffer;
  start: number;
  end: number;
  distance: string;
  /** A base row's answer, written by its index straight into the output (json unused then). */
  index?: DatasetIndex;
  row?: number;
}

/**
 * The answers as one JSON array between two ASCII strings (the envelope around it), written into
 * one buffer: no small buffer per part, and sent as it is (no decoding into a string and encoding
 * again on the socket).
 */
export function answersJson(answers: AnswerParts[], before = '', after = ''): Buffer {
  let size = before.length + 2 + Math.max(0, answers.length - 1) + after.length;
  for (const a of answers) size += (a.index ? a.index.answerSize(a.row!) : a.end - a.start) + a.distance.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(before, 0, 'latin1');
  out[at++] = 0x5b; // [
  for (let k = 0; k < answers.length; k++) {
    const a = answers[k]!;
    if (k) out[at++] = 0x2c; // ,
    at = a.index ? a.index.writeAnswer(a.row!, out, at) : at + a.json.copy(out, at, a.start, a.end);
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

/** Bytes an id string costs in V8 (header and 36 one-byte characters, rounded): the side map's estimate. */
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
function grow<T extends Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer>>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * The coordinates' run of an answer, between its head and tail: the numbers in JavaScript's
 * format, as JSON.stringify writes them on the SQL path.
 */
const coordinatesJson = (lat: number, lon: number) => `,"latitude":${lat},"longitude":${lon}`;

/** Numbers of a comma-separated list. */
function numbers(list: string): number[] {
  return list.split(',').map(Number);
}

/**
 * Where each row is by its id: an open-addressing table of row + 1 (0: empty), the ids themselves
 * being the index's 16-byte ids (no string or map entry per row).
 */
class IdTable {
  slots: Int32Array;
  count = 0;

  /** The rows' ids are the owner's 16-byte ids, passed on each call (never kept here). */
  constructor(capacity: number) {
    this.slots = new Int32Array(Math.max(8, capacity));
  }

  static hash(ids: Uint8Array, at: number): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < 16; k++) h = Math.imul(h ^ ids[at + k]!, 0x01000193);
    return h >>> 0;
  }

  /** The slot holding the row of this id, or the empty slot where it would go. */
  private slotOf(ids: Uint8Array, key: Uint8Array, at: number): number {
    const cap = this.slots.length;
    let h = Math.floor((IdTable.hash(key, at) / 4294967296) * cap);
    for (;;) {
      const r = this.slots[h]!;
      if (r === 0 || compareIdBytes(ids, 16 * (r - 1), key, at) === 0) return h;
      h = h + 1 === cap ? 0 : h + 1;
    }
  }

  /** The row whose id is key[at, at + 16), or -1. */
  find(ids: Uint8Array, key: Uint8Array, at: number): number {
    return this.slots[this.slotOf(ids, key, at)]! - 1;
  }

  /** Sets the row of the id of `row` (in ids); the row it replaces, or -1. */
  set(ids: Uint8Array, row: number): number {
    if ((this.count + 1) * 10 > this.slots.length * 7) this.resize(ids, this.slots.length * 2);
    const h = this.slotOf(ids, ids, 16 * row);
    const before = this.slots[h]! - 1;
    if (before < 0) this.count += 1;
    this.slots[h] = row + 1;
    return before;
  }

  /** The same rows in a table of `capacity` slots (at most 70 % full). */
  resize(ids: Uint8Array, capacity: number): void {
    const old = this.slots;
    this.slots = new Int32Array(Math.max(8, capacity, Math.ceil((this.count * 10) / 7) + 1));
    for (let k = 0; k < old.length; k++) {
      const r = old[k]!;
      if (r) this.slots[this.slotOf(ids, ids, 16 * (r - 1))] = r;
    }
  }
}

/**
 * Each row's answer and search text are one record of bytes in a segment: the answer as JSON with
 * what the index already knows left out, then the search text (UTF-8, as stored). The answer's
 * first byte ANSWER_PREFIX stands for `{"poi_id":"<id>","dataset_id":"<dataset>","name":`; its last
 * byte ANSWER_PIECE says that its tail's end is a piece of the dataset's dictionary, whose number
 * is in the three bytes before it. JSON text never holds these bytes (control characters are
 * escaped in strings), so they are told apart from the answer's own. An answer is so written
 * with a few copies and no scan (a decoder reading every byte for pieces took 2.5 µs an answer,
 * 50 µs a page). The coordinates' run stays written out: formatting two numbers per answer cost
 * 1 µs an answer, more than the 40 bytes a row it saves are worth.
 */
const ANSWER_PIECE = 1;
const ANSWER_PREFIX = 3;
/** A segment's size: a record's offset is segment × SEGMENT_SIZE + its place in it (Uint32 offsets: 4 GiB in all). */
const SEGMENT_BITS = 26;
const SEGMENT_SIZE = 1 << SEGMENT_BITS;
const SEGMENTS_MAX = 64;
/** Copies src[from, to) to out at `at`; returns the bytes copied (short runs by a loop, long ones natively). */
function copyBytes(src: Buffer, from: number, to: number, out: Buffer, at: number): number {
  const n = to - from;
  if (n > 48) return src.copy(out, at, from, to);
  for (let k = 0; k < n; k++) out[at + k] = src[from + k]!;
  return n;
}

/** The ASCII codes of each byte's two hexadecimal digits. */
const HEX_CODES = Uint8Array.from(HEX.flatMap((h) => [h.charCodeAt(0), h.charCodeAt(1)]));

/** Writes the uuid text of ids[at, at + 16) to out at `to` (36 bytes). */
function writeIdText(ids: Uint8Array, at: number, out: Uint8Array, to: number): void {
  for (let b = 0; b < 16; b++) {
    if (b === 4 || b === 6 || b === 8 || b === 10) out[to++] = 45;
    const v = ids[at + b]! * 2;
    out[to++] = HEX_CODES[v]!;
    out[to++] = HEX_CODES[v + 1]!;
  }
}

/**
 * The piece dictionary: ends of the answers' tails, each from a `,"` (a field's start: a quote
 * after a comma is never inside a JSON string) to the tail's end, stored once. A piece enters on
 * its second sighting within a window of recent ones (a doorkeeper): ends made of repeated fields
 * (the timestamps of one import, null fields, a category and a tag list) enter at once, an end
 * holding a field unique to its row (an address, a phone number) does not fill the dictionary.
 * Each row uses the longest of its tail's ends that the dictionary holds.
 */
const PIECES_MAX = 1 << 16;
const PIECE_BYTES_MAX = 16 << 20;
/** Shorter ends stay in place (a piece's reference costs 4 bytes). */
const PIECE_MIN = 12;
const DOORKEEPER_BITS = 14;

class PieceDictionary {
  bytes = Buffer.allocUnsafe(1 << 12);
  /** Piece k is bytes[start[k], start[k + 1]). */
  start = new Uint32Array(256);
  count = 0;
  private hashes = new Int32Array(256);
  private table = new Int32Array(1 << 10);
  private door = new Int32Array(1 << DOORKEEPER_BITS);

  /** The piece of this hash and length (its bytes not compared: the caller does), or -1. */
  find(h: number, length: number): number {
    const mask = this.table.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const k = this.table[s]! - 1;
      if (k < 0) return -1;
      if (this.hashes[k] === h && this.start[k + 1]! - this.start[k]! === length) return k;
    }
  }

  /** Whether this hash was seen since its slot of the window was last taken (and it is now). */
  seen(h: number): boolean {
    const d = (h >>> 7) & ((1 << DOORKEEPER_BITS) - 1);
    if (this.door[d] === h) return true;
    this.door[d] = h;
    return false;
  }

  /** Adds src[from, to) of hash h; its number, or -1 once the dictionary is full. */
  add(src: Buffer, from: number, to: number, h: number): number {
    const used = this.start[this.count]!;
    if (this.count + 1 >= PIECES_MAX || used + (to - from) > PIECE_BYTES_MAX) return -1;
    this.start = grow(this.start, this.count + 2);
    this.hashes = grow(this.hashes, this.count + 1);
    if (used + (to - from) > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, used + (to - from)));
      this.bytes.copy(bigger, 0, 0, used);
      this.bytes = bigger;
    }
    src.copy(this.bytes, used, from, to);
    const id = this.count++;
    this.hashes[id] = h;
    this.start[id + 1] = used + (to - from);
    if (this.count * 2 > this.table.length) this.table = new Int32Array(this.table.length * 2);
    else {
      const mask = this.table.length - 1;
      let s = h & mask;
      while (this.table[s]) s = (s + 1) & mask;
      this.table[s] = id + 1;
      return id;
    }
    const mask = this.table.length - 1;
    for (let k = 0; k < this.count; k++) {
      let s = this.hashes[k]! & mask;
      while (this.table[s]) s = (s + 1) & mask;
      this.table[s] = k + 1;
    }
    return id;
  }

  /** The pieces as the index keeps them: their bytes trimmed, and where each starts. */
  finish(): { bytes: Buffer; start: Uint32Array } {
    const used = this.start[this.count]!;
    return { bytes: Buffer.from(this.bytes.subarray(0, used)), start: this.start.slice(0, this.count + 1) };
  }
}

/**
 * Collects a dataset's pages, doing each row's work as its page arrives (the build's cost spread
 * over its pages, so the server keeps answering), then builds the index in one step: kdbush's
 * sort, the only part that takes the whole dataset at once.
 */
export class DatasetIndexBuilder {
  /** 16 bytes per row. */
  ids = new Uint8Array(16 * 1024);
  readonly idTable = new IdTable(1024);
  private rows = 0;
  lat = new Float64Array(1024);
  lon = new Float64Array(1024);
  cube = new Float64Array(3 * 1024);
  /** Full segments, the one being written, and each record's start and its search text's start. */
  readonly segments: Buffer[] = [];
  private segment = Buffer.allocUnsafe(1 << 16);
  private fill = 0;
  recordStart = new Uint32Array(1024);
  textStart = new Uint32Array(1024);
  readonly pieces = new PieceDictionary();
  /** The rows of each bigram of the search texts (past POSTINGS_SCAN_MAX, only their count). */
  readonly postings = new BigramPostings(POSTINGS_SCAN_MAX);
  /** Rows whose POI came again in a later page (moved within the table during the build): dead from the start. */
  readonly superseded: number[] = [];
  /** `","dataset_id":"<dataset>","name":`, what follows the id in every answer's head. */
  readonly prefixTail: Buffer;
  private record = Buffer.allocUnsafe(1 << 12);
  /** The piece the previous row's tail ended with (-1: none), and rows since the last full look. */
  private lastPiece = -1;
  private shortcuts = 0;

  constructor(readonly datasetId: string) {
    this.prefixTail = Buffer.from(`","dataset_id":"${datasetId}","name":`);
  }

  get count(): number {
    return this.rows;
  }

  get bytes(): number {
    return 16 * this.rows + 4 * this.idTable.slots.length + this.rows * ROW_BYTES + SEGMENT_SIZE * this.segments.length + this.fill + this.pieces.start[this.pieces.count]! + this.postings.estimate();
  }

  add(page: IndexPage): void {
    const at = this.rows;
    const n = page.count;
    const need = at + n;
    this.ids = grow(this.ids, 16 * need);
    this.lat = grow(this.lat, need);
    this.lon = grow(this.lon, need);
    this.cube = grow(this.cube, 3 * need);
    this.recordStart = grow(this.recordStart, need);
    this.textStart = grow(this.textStart, need);
    const coords = numbers(page.coords);
    const jsonLengths = numbers(page.jsonLengths);
    const textLengths = numbers(page.textLengths);
    const json = Buffer.from(page.json);
    const texts = Buffer.from(page.texts);
    const ids = Buffer.from(page.ids, 'latin1');
    let jsonAt = 0;
    let textAt = 0;
    for (let k = 0; k < n; k++) {
      const i = at + k;
      if (!writeIdBytes(page.ids, 36 * k, this.ids, 16 * i)) throw new Error('search index: a page holds an id that is not a uuid');
      this.rows = i + 1;
      const before = this.idTable.set(this.ids, i);
      if (before >= 0) this.superseded.push(before);
      const lat = coords[2 * k]!;
      const lon = coords[2 * k + 1]!;
      this.lat[i] = lat;
      this.lon[i] = lon;
      const [x, y, z] = cubeOf(lat, lon);
      this.cube[3 * i] = x;
      this.cube[3 * i + 1] = y;
      this.cube[3 * i + 2] = z;
      const head = jsonLengths[2 * k]!;
      const tail = jsonLengths[2 * k + 1]!;
      const textLength = textLengths[k]!;
      const answer = this.encodeAnswer(json, jsonAt, jsonAt + head, jsonAt + head + tail, ids, 36 * k, coordinatesJson(lat, lon));
      this.place(i, answer, texts, textAt, textLength);
      jsonAt += head + tail;
      textAt += textLength + 1;
    }
    if (json.length !== jsonAt || texts.length !== textAt) throw new Error('search index: the lengths of a page do not match its text');
    this.postings.addTexts(page.texts, at);
  }

  /**
   * A row's answer as its record holds it (in this.record; returns its length): the prefix as one
   * byte when it is the usual one, the name, the coordinates' run, then the tail's pieces, each in
   * place or as its dictionary number.
   */
  private encodeAnswer(json: Buffer, start: number, headEnd: number, end: number, ids: Buffer, idAt: number, coordinates: string): number {
    let rec = this.record;
    // Never longer than the answer and the coordinates (a piece's reference is shorter than the piece).
    const most = end - start + coordinates.length;
    if (rec.length < most) rec = this.record = Buffer.allocUnsafe(Math.max(most, 2 * rec.length));
    let out = 0;
    let from = start;
    const tail = this.prefixTail;
    // `{"poi_id":"` (11 bytes), the row's id, then `","dataset_id":"…","name":`.
    if (
      headEnd - start >= 47 + tail.length &&
      json.compare(PREFIX_HEAD, 0, 11, start, start + 11) === 0 &&
      json.compare(ids, idAt, idAt + 36, start + 11, start + 47) === 0 &&
      json.compare(tail, 0, tail.length, start + 47, start + 47 + tail.length) === 0
    ) {
      rec[out++] = ANSWER_PREFIX;
      from = start + 47 + tail.length;
    }
    out += copyBytes(json, from, headEnd, rec, out);
    out += rec.write(coordinates, out, 'latin1');
    // The tail's ends at each `,"`, hashed from the end backwards; the longest the dictionary holds
    // (or takes now) replaces its bytes.
    const pieces = this.pieces;
    let best = -1;
    let bestAt = end;
    // Rows of one import mostly end alike: the previous row's piece, when this tail ends with it,
    // is taken without hashing (every 16th row is hashed all the same, to find longer ends).
    const last = this.lastPiece;
    if (last >= 0 && (++this.shortcuts & 15) !== 0) {
      const from = pieces.start[last]!;
      const length = pieces.start[last + 1]! - from;
      if (end - length >= headEnd && json.compare(pieces.bytes, from, from + length, end - length, end) === 0) {
        best = last;
        bestAt = end - length;
      }
    }
    const shortcut = best;
    let h = 0;
    for (let k = best >= 0 ? headEnd - 1 : end - 1; k >= headEnd; k--) {
      h = (Math.imul(h, 0x01000193) + json[k]!) | 0;
      if (json[k] !== 0x2c || json[k + 1] !== 0x22 || end - k < PIECE_MIN) continue;
      let piece = pieces.find(h, end - k);
      if (piece < 0 && pieces.seen(h)) piece = pieces.add(json, k, end, h);
      // An end seen for the first time: a longer one, holding it, is new too (or as good as).
      if (piece < 0) break;
      best = piece;
      bestAt = k;
    }
    // The hash is not proof: the bytes are compared (the shortcut's were).
    if (best >= 0 && best !== shortcut && json.compare(pieces.bytes, pieces.start[best]!, pieces.start[best + 1]!, bestAt, end) !== 0) {
      best = -1;
      bestAt = end;
    }
    this.lastPiece = best;
    out += copyBytes(json, headEnd, bestAt, rec, out);
    if (best >= 0) {
      rec[out++] = best & 0xff;
      rec[out++] = (best >>> 8) & 0xff;
      rec[out++] = best >>> 16;
      rec[out++] = ANSWER_PIECE;
    }
    return out;
  }

  /** Puts row i's record (answer in this.record, then its text from texts) in the segment being written. */
  private place(i: number, answerLength: number, texts: Buffer, textAt: number, textLength: number): void {
    const size = answerLength + textLength;
    if (this.fill + size > this.segment.length) {
      if (this.fill + size <= SEGMENT_SIZE) {
        const bigger = Buffer.allocUnsafe(Math.min(SEGMENT_SIZE, Math.max(2 * this.segment.length, this.fill + size)));
        this.segment.copy(bigger, 0, 0, this.fill);
        this.segment = bigger;
      } else {
        if (this.segments.length + 1 >= SEGMENTS_MAX) throw new Error('search index: a dataset\'s answers and texts exceed the index\'s 4 GiB');
        this.segments.push(Buffer.from(this.segment.subarray(0, this.fill)));
        this.segment = Buffer.allocUnsafe(Math.max(1 << 16, size));
        this.fill = 0;
      }
    }
    const base = this.segments.length * SEGMENT_SIZE;
    this.recordStart[i] = base + this.fill;
    this.fill += this.record.copy(this.segment, this.fill, 0, answerLength);
    this.textStart[i] = base + this.fill;
    this.fill += texts.copy(this.segment, this.fill, textAt, textAt + textLength);
  }

  finish(): DatasetIndex {
    this.postings.finish();
    const segments = [...this.segments, Buffer.from(this.segment.subarray(0, this.fill))];
    this.idTable.resize(this.ids, 0);
    return DatasetIndex.fromBuilder(this, segments);
  }
}

const PREFIX_HEAD = Buffer.from('{"poi_id":"');

/** The layout's version: a snapshot of another is refused (and the dataset built from PostgreSQL). */
export const SNAPSHOT_FORMAT = 2;

/** What a snapshot holds beside its buffers: plain JSON values. */
export interface DatasetIndexSnapshotHeader {
  format: number;
  datasetId: string;
  /** Base rows (live or dead). */
  rows: number;
  deadCount: number;
  segments: number;
  idSlots: number;
  pieces: number;
  postingsBits: number;
  postings: number;
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
  ids: Uint8Array;
  idTable: IdTable;
  cube: Float64Array;
  rowOf: Uint32Array;
  posOf: Uint32Array;
  segments: Buffer[];
  recordStart: Uint32Array;
  textStart: Uint32Array;
  pieces: Buffer;
  pieceStart: Uint32Array;
  postings: BigramPostings;
  dead: Uint8Array;
  deadCount: number;
}

/**
 * Per row beyond its record: kdbush's coordinates and id (20), the cube point (24), the tree
 * order's two maps (8), the record's two offsets (8) and the dead mark (1).
 */
const ROW_BYTES = 20 + 24 + 8 + 8 + 1;

/** The json of AnswerParts written by their index. */
const NO_BYTES = Buffer.alloc(0);

export class DatasetIndex {
  readonly datasetId: string;
  private readonly tree: KDBush;
  /** kdbush's coordinates by tree position: longitude, latitude (the rows' own, as parsed from PostgreSQL's text). */
  private readonly coords: Float64Array;
  /** Each row's id, 16 bytes. */
  private readonly ids: Uint8Array;
  /** Where each base row is by its id. */
  private readonly idTable: IdTable;
  /** The cube points by tree position (chordOf reads them through posOf). */
  private readonly cube: Float64Array;
  /** The row at each tree position, and the tree position of each row. */
  private readonly rowOf: Uint32Array;
  private readonly posOf: Uint32Array;
  /** The records (answer, then search text) and where each row's starts and its text starts. */
  private readonly segments: Buffer[];
  private readonly recordStart: Uint32Array;
  private readonly textStart: Uint32Array;
  private readonly pieces: Buffer;
  private readonly pieceStart: Uint32Array;
  private readonly postings: BigramPostings;
  /** `{"poi_id":"` and `","dataset_id":"<dataset>","name":`, around the id in every usual answer. */
  private readonly prefixTail: Buffer;
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
    this.coords = p.tree.coords as Float64Array;
    this.ids = p.ids;
    this.idTable = p.idTable;
    this.cube = p.cube;
    this.rowOf = p.rowOf;
    this.posOf = p.posOf;
    this.segments = p.segments;
    this.recordStart = p.recordStart;
    this.textStart = p.textStart;
    this.pieces = p.pieces;
    this.pieceStart = p.pieceStart;
    this.postings = p.postings;
    this.dead = p.dead;
    this.deadCount = p.deadCount;
    this.prefixTail = Buffer.from(`","dataset_id":"${p.datasetId}","name":`);
    let bytes = this.tree.data.byteLength + this.ids.byteLength + this.idTable.slots.byteLength + this.cube.byteLength + this.rowOf.byteLength + this.posOf.byteLength;
    for (const s of this.segments) bytes += s.length + 96;
    bytes += this.recordStart.byteLength + this.textStart.byteLength + this.pieces.length + this.pieceStart.byteLength + this.postings.bytes + this.dead.byteLength;
    this.baseBytes = bytes;
  }

  /** The index built from a builder's rows: kdbush's sort, and the cube points put in its order. */
  static fromBuilder(b: DatasetIndexBuilder, segments: Buffer[]): DatasetIndex {
    const n = b.count;
    const tree = new KDBush(Math.max(n, 1));
    for (let i = 0; i < n; i++) tree.add(b.lon[i]!, b.lat[i]!);
    // kdbush cannot hold zero items: an empty dataset holds one point that is always dead.
    if (n === 0) tree.add(0, 0);
    tree.finish();
    // The tree answers with positions in its own (spatial) order, and the cube points are kept in
    // that order: the rows of a box are then a few runs of adjacent memory, not a cache miss each
    // (the boxes' loop was bound by those misses). Rows keep their numbers (postings and records
    // refer to them); rowOf and posOf translate.
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
    const pieces = b.pieces.finish();
    return new DatasetIndex({
      datasetId: b.datasetId,
      tree,
      ids: b.ids.slice(0, 16 * n),
      idTable: b.idTable,
      cube,
      rowOf,
      posOf,
      segments,
      recordStart: b.recordStart.slice(0, n),
      textStart: b.textStart.slice(0, n),
      pieces: pieces.bytes,
      pieceStart: pieces.start,
      postings: b.postings,
      dead,
      deadCount,
    });
  }

  /**
   * The index as bytes, for a snapshot on disk (index-snapshot.ts writes them, fromSnapshot reads
   * them back): a header of plain JSON values and a list of buffers, views of the index's own memory
   * that never changes after the build (the dead marks, which do, and the postings, one buffer each
   * in memory, are copied). Rows written since the
   * build (the side map) are in the header. The header's format changes whenever the layout does;
   * fromSnapshot refuses any other.
   */
  toSnapshot(): DatasetIndexSnapshot {
    const postings = this.postings.toBuffers();
    const header: DatasetIndexSnapshotHeader = {
      format: SNAPSHOT_FORMAT,
      datasetId: this.datasetId,
      rows: this.ids.length / 16,
      deadCount: this.deadCount,
      segments: this.segments.length,
      idSlots: this.idTable.slots.length,
      pieces: this.pieceStart.length - 1,
      postingsBits: postings.bits,
      postings: postings.postings,
      extra: [...this.extra.values()].map((e) => e.row),
    };
    const buffers: Uint8Array[] = [
      new Uint8Array(this.tree.data),
      this.ids,
      bytesOf(this.idTable.slots),
      bytesOf(this.cube),
      bytesOf(this.rowOf),
      bytesOf(this.posOf),
      bytesOf(this.recordStart),
      bytesOf(this.textStart),
      this.pieces,
      bytesOf(this.pieceStart),
      // A copy: removals change the marks while the snapshot is written; nothing else changes after the build.
      this.dead.slice(),
      ...this.segments,
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
    const fixed = 11;
    const want = fixed + h.segments + 5;
    if (!Number.isInteger(n) || n < 0 || !Number.isInteger(h.segments) || s.buffers.length !== want) throw new Error(`search index snapshot: ${s.buffers.length} buffers, the header says ${want}`);
    const b = s.buffers;
    const treeBytes = b[0]!;
    // kdbush reads its own ArrayBuffer from offset 0.
    const treeData = treeBytes.byteOffset === 0 && treeBytes.byteLength === treeBytes.buffer.byteLength ? (treeBytes.buffer as ArrayBuffer) : new Uint8Array(treeBytes).buffer;
    const tree = KDBush.from(treeData);
    if (tree.numItems !== size) throw new Error("search index snapshot: the tree does not hold the header's rows");
    const idTable = new IdTable(8);
    idTable.slots = typedOf(Int32Array, b[2]!, h.idSlots);
    idTable.count = n;
    const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    const segments = b.slice(fixed, fixed + h.segments).map(asBuffer);
    const index = new DatasetIndex({
      datasetId: h.datasetId,
      tree,
      ids: typedOf(Uint8Array, b[1]!, 16 * n),
      idTable,
      cube: typedOf(Float64Array, b[3]!, 3 * size),
      rowOf: typedOf(Uint32Array, b[4]!, size),
      posOf: typedOf(Uint32Array, b[5]!, size),
      recordStart: typedOf(Uint32Array, b[6]!, n),
      textStart: typedOf(Uint32Array, b[7]!, n),
      pieces: asBuffer(b[8]!),
      pieceStart: typedOf(Uint32Array, b[9]!, h.pieces + 1),
      dead: typedOf(Uint8Array, b[10]!, size),
      segments,
      postings: BigramPostings.fromBuffers(h.postingsBits, h.postings, b.slice(fixed + h.segments)),
      deadCount: h.deadCount,
    });
    index.check();
    for (const row of h.extra) index.upsert(row);
    return index;
  }

  /** Throws unless every record and piece lies inside its buffer (a snapshot's bytes). */
  private check(): void {
    const n = this.recordStart.length;
    for (let i = 0; i < n; i++) {
      const seg = this.recordStart[i]! >>> SEGMENT_BITS;
      if (seg >= this.segments.length || (i + 1 < n && this.recordStart[i + 1]! < this.recordStart[i]!)) throw new Error('search index snapshot: a record lies outside the segments');
      const end = this.recordEnd(i);
      if (this.textStart[i]! < this.recordStart[i]! || this.textStart[i]! > end || end - seg * SEGMENT_SIZE > this.segments[seg]!.length) {
        throw new Error('search index snapshot: a record lies outside its segment');
      }
    }
    if (this.pieceStart[this.pieceStart.length - 1]! > this.pieces.length) throw new Error('search index snapshot: a piece lies outside the dictionary');
  }

  /** Where row i's record ends: the next row's start, or its segment's end. */
  private recordEnd(i: number): number {
    const start = this.recordStart[i]!;
    const seg = start >>> SEGMENT_BITS;
    if (i + 1 < this.recordStart.length) {
      const next = this.recordStart[i + 1]!;
      if (next >>> SEGMENT_BITS === seg) return next;
    }
    return seg * SEGMENT_SIZE + this.segments[seg]!.length;
  }

  /** POIs this index answers with. */
  get size(): number {
    return this.ids.length / 16 - this.deadCount + this.extra.size;
  }

  /** Memory held, in bytes (exact for buffers and arrays; the side map's strings at an estimate). */
  get bytes(): number {
    return this.baseBytes + this.extraBytes;
  }

  /** Writes applied since the build: past a point a rebuild is cheaper than the side map. */
  get churn(): number {
    return this.deadCount + this.extra.size;
  }

  private baseIndexOf(id: string): number {
    const key = idBytesOf(id);
    return key ? this.idTable.find(this.ids, key, 0) : -1;
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

  /** Row i's id as text. */
  private idText(i: number): string {
    return idTextAt(this.ids, 16 * i);
  }

  /** Bytes of base row i's answer but its closing brace (and distance), as writeAnswer writes it. */
  answerSize(i: number): number {
    const start = this.recordStart[i]!;
    const seg = this.segments[start >>> SEGMENT_BITS]!;
    const k = start & (SEGMENT_SIZE - 1);
    const end = this.textStart[i]! & (SEGMENT_SIZE - 1);
    let size = end - k;
    if (end > k && seg[end - 1] === ANSWER_PIECE) {
      const piece = seg[end - 4]! | (seg[end - 3]! << 8) | (seg[end - 2]! << 16);
      size += this.pieceStart[piece + 1]! - this.pieceStart[piece]! - 4;
    }
    if (seg[k] === ANSWER_PREFIX) size += 46 + this.prefixTail.length;
    return size;
  }

  /**
   * Writes base row i's answer but its closing brace (and distance) to out at `at` (answerSize
   * bytes): the prefix and the dictionary piece its record leaves out written back. Returns where
   * it ends.
   */
  writeAnswer(i: number, out: Buffer, at: number): number {
    const start = this.recordStart[i]!;
    const seg = this.segments[start >>> SEGMENT_BITS]!;
    let k = start & (SEGMENT_SIZE - 1);
    let end = this.textStart[i]! & (SEGMENT_SIZE - 1);
    let from = 0;
    let to = 0;
    if (end > k && seg[end - 1] === ANSWER_PIECE) {
      const piece = seg[end - 4]! | (seg[end - 3]! << 8) | (seg[end - 2]! << 16);
      from = this.pieceStart[piece]!;
      to = this.pieceStart[piece + 1]!;
      end -= 4;
    }
    if (seg[k] === ANSWER_PREFIX) {
      at += copyBytes(PREFIX_HEAD, 0, 11, out, at);
      writeIdText(this.ids, 16 * i, out, at);
      at += 36;
      at += this.prefixTail.copy(out, at);
      k += 1;
    }
    at += seg.copy(out, at, k, end);
    if (to > from) at += this.pieces.copy(out, at, from, to);
    return at;
  }

  /** Base row i's search text (UTF-8) as a view of its record. */
  private textBytes(i: number): Buffer {
    const start = this.textStart[i]!;
    const seg = this.segments[start >>> SEGMENT_BITS]!;
    const local = start & (SEGMENT_SIZE - 1);
    return seg.subarray(local, local + (this.recordEnd(i) - start));
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

  /** Whether base row i at this chord comes after the query's cursor (ids compared as bytes). */
  private afterRow(chord: number, i: number, q: PreparedQuery): boolean {
    const a = q.after;
    if (!a || chord > a.hi) return true;
    if (chord < a.lo) return false;
    return q.afterId ? compareIdBytes(this.ids, 16 * i, q.afterId, 0) > 0 : this.idText(i) > a.id;
  }

  /** Whether the row at tree position p lies inside the query's bbox (none: every row). */
  private inBox(p: number, q: PreparedQuery): boolean {
    const b = q.bbox;
    if (!b) return true;
    const lon = this.coords[2 * p]!;
    const lat = this.coords[2 * p + 1]!;
    return lon >= b[0] && lat >= b[1] && lon <= b[2] && lat <= b[3];
  }

  /** Whether base row i's search text holds every word of the query. */
  private matchesWords(i: number, q: PreparedQuery): boolean {
    if (!q.wordBytes.length) return true;
    const text = this.textBytes(i);
    for (const w of q.wordBytes) if (text.indexOf(w) < 0) return false;
    return true;
  }

  private matchOf(knn: number, i: number): Match {
    return { knn, id: this.idText(i), row: i, from: this };
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
    return { json: NO_BYTES, start: 0, end: 0, distance, index: this, row: m.row };
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
    return best >= 0 && this.postings.count[best]! <= tuning.postingsScanMax && !this.postings.dropped(best) ? best : undefined;
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
    keep.sort((a, b) => knn[a]! - knn[b]! || compareIdBytes(ids, 16 * rows[a]!, ids, 16 * rows[b]!));
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
        if (after && !this.afterRow(c, i, q)) continue;
        if (words && !this.matchesWords(i, q)) continue;
        if (boxed && !this.inBox(p, q)) continue;
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
      const p = this.posOf[i]!;
      if (this.dead[p] || !this.matchesWords(i, q) || !this.inBox(p, q)) continue;
      const c = this.chordOf(i, q);
      if (this.inRadius(c, q) && this.afterRow(c, i, q)) {
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
      if (q.after && !this.afterRow(this.chordOf(i, q), i, q)) return false;
      return this.inBox(p, q) && this.matchesWords(i, q);
    };
    const total = this.rowOf.length;
    const coords = this.coords;
    const posOf = this.posOf;
    const kmOf = (i: number) => haversineKm(q.longitude, q.latitude, coords[2 * posOf[i]!]!, coords[2 * posOf[i]! + 1]!);
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
    return this.recordStart.length;
  }

  /** Base row i's answer as JSON without its closing brace, and its search text. */
  baseRowJson(i: number): string {
    const out = Buffer.allocUnsafe(this.answerSize(i));
    this.writeAnswer(i, out, 0);
    return out.toString('utf8');
  }

  baseRowText(i: number): string {
    return this.textBytes(i).toString('utf8');
  }

  isLive(i: number): boolean {
    return !this.dead[this.posOf[i]!];
  }

  idOf(i: number): string {
    return this.idText(i);
  }

  /** The order of two base rows' ids (the search's tie order). */
  compareIds(a: number, b: number): number {
    return compareIdBytes(this.ids, 16 * a, this.ids, 16 * b);
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
    return { json: NO_BYTES, start: 0, end: 0, distance: rest, index: this, row: i };
  }
}
