/**
 * The type-ahead from memory (docs/search.md "Suggest"): beside a dataset's search index, the
 * suggest keys of its rows (suggest-keys.ts) sorted for prefix lookups, and bigram postings of
 * those keys for "contains". Built on a dataset's first suggest (PostgreSQL answers meanwhile),
 * yielding to the event loop between slices; rows written since the index's build are read from
 * the index's side map, and removed rows are skipped through its marks, so the table needs no
 * upkeep of its own: a rebuilt index starts a new table.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AnswerParts, DatasetIndex, IndexRow } from './dataset-index';
import { BigramPostings, cubeOf, distanceOfChord } from './dataset-index';
import { matchOf, nameKeyOf, rankOf, suggestTextOf, type SuggestMatch } from './suggest-keys';

/** Rows per slice of a build between two yields to the event loop. */
const SLICE = 5_000;
/** High bit of an entry: the key is a reading's (else the name's). */
const READING = 0x80000000;

/** One ranked suggestion, from memory or from PostgreSQL's rows. */
export interface SuggestCandidate {
  rank: number;
  match: SuggestMatch;
  /** The chord to the point (the search's order key), or 0 without a point. */
  knn: number;
  name: string;
  id: string;
  answer: (rest: string) => AnswerParts;
}

/** The order of suggestions: rank; then nearest first around a point, else shorter name key, then name key; then id. */
export function compareCandidates(a: SuggestCandidate, b: SuggestCandidate, point: boolean): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (point) {
    if (a.knn !== b.knn) return a.knn - b.knn;
  } else {
    if (a.name.length !== b.name.length) return a.name.length - b.name.length;
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The first n candidates offered, in order, each POI once. */
export class TopSuggestions {
  readonly list: SuggestCandidate[] = [];
  private readonly ids = new Set<string>();
  constructor(
    readonly n: number,
    readonly point: boolean,
  ) {}

  get full(): boolean {
    return this.list.length >= this.n;
  }

  /** The worst rank kept once full (a rank above it cannot enter), else 4. */
  get ceilingRank(): number {
    return this.full ? this.list[this.list.length - 1]!.rank : 4;
  }

  /** Whether a candidate of this rank could still enter. */
  wants(rank: number): boolean {
    return !this.full || rank <= this.ceilingRank;
  }

  offer(c: SuggestCandidate): void {
    if (this.ids.has(c.id)) return;
    const list = this.list;
    if (this.full && compareCandidates(c, list[list.length - 1]!, this.point) >= 0) return;
    let at = list.length;
    while (at > 0 && compareCandidates(c, list[at - 1]!, this.point) < 0) at -= 1;
    list.splice(at, 0, c);
    this.ids.add(c.id);
    if (list.length > this.n) this.ids.delete(list.pop()!.id);
  }
}

export interface SuggestRequest {
  keys: string[];
  point?: { latitude: number; longitude: number };
}

const fieldsOf = (json: string) => JSON.parse(`${json}}`) as { name: string; address: string | null; category: string | null; tags: string[] };

/** A dataset's keys: each base row's suggest text, sorted keys with their rows, and bigram postings. */
export class SuggestTable {
  private constructor(
    private readonly index: DatasetIndex,
    private readonly texts: string[],
    private readonly keys: string[],
    private readonly entries: Uint32Array,
    private readonly postings: BigramPostings,
    readonly bytes: number,
  ) {}

  /** Reads the index's rows in slices (yielding between them), then sorts the keys. */
  static async build(index: DatasetIndex): Promise<SuggestTable> {
    const n = index.baseRows;
    const texts: string[] = new Array(n);
    const keyList: string[] = [];
    const rowList: number[] = [];
    const postings = new BigramPostings();
    let bytes = 0;
    for (let from = 0; from < n; from += SLICE) {
      const to = Math.min(n, from + SLICE);
      let joined = '';
      for (let i = from; i < to; i++) {
        const text = suggestTextOf(fieldsOf(index.baseRowJson(i)), index.baseRowText(i));
        texts[i] = text;
        joined += i === from ? text : `\n${text}`;
        bytes += 2 * text.length + 40;
        let k = 0;
        for (const key of text.split(' ')) {
          if (key) {
            keyList.push(key);
            rowList.push(k === 0 ? i : (i | READING) >>> 0);
            bytes += 2 * key.length + 40 + 4;
          }
          k += 1;
        }
      }
      postings.addTexts(joined, from);
      if (to < n) await yieldToLoop();
    }
    postings.finish();
    const order = Array.from(keyList.keys()).sort((a, b) => (keyList[a]! < keyList[b]! ? -1 : keyList[a]! > keyList[b]! ? 1 : 0));
    const keys = order.map((e) => keyList[e]!);
    const entries = Uint32Array.from(order, (e) => rowList[e]!);
    return new SuggestTable(index, texts, keys, entries, postings, bytes + postings.bytes);
  }

  /** The first entry whose key is ≥ key. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private candidate(i: number, match: SuggestMatch, q: SuggestRequest, cube: [number, number, number] | undefined): SuggestCandidate {
    const index = this.index;
    return {
      rank: rankOf(match),
      match,
      knn: cube ? index.chordFrom(i, cube[0], cube[1], cube[2]) : 0,
      name: nameKeyOf(this.texts[i]!),
      id: index.idOf(i),
      answer: (rest) => index.baseAnswer(i, rest),
    };
  }

  private offerRow(i: number, q: SuggestRequest, top: TopSuggestions, cube: [number, number, number] | undefined): void {
    if (!this.index.isLive(i)) return;
    const match = matchOf(this.texts[i]!, q.keys);
    if (match && top.wants(rankOf(match))) top.offer(this.candidate(i, match, q, cube));
  }

  /** Offers this dataset's matches of the query to `top` (base rows, then rows written since the build). */
  suggest(q: SuggestRequest, top: TopSuggestions): void {
    const cube = q.point ? cubeOf(q.point.latitude, q.point.longitude) : undefined;
    // Names, then readings: a prefix's entries are one run of the sorted keys.
    for (const wantReading of [false, true]) {
      if (!top.wants(wantReading ? 2 : 1)) break;
      for (const key of q.keys) {
        for (let e = this.lowerBound(key); e < this.keys.length && this.keys[e]!.startsWith(key); e++) {
          const entry = this.entries[e]!;
          if (entry >= READING !== wantReading) continue;
          this.offerRow(entry & ~READING, q, top, cube);
        }
      }
    }
    if (top.wants(3)) {
      for (const key of q.keys) {
        const posting = this.rarestPosting(key);
        if (posting === null) continue;
        if (posting === undefined) {
          for (let i = 0; i < this.texts.length; i++) this.offerRow(i, q, top, cube);
        } else {
          for (const i of this.postings.rows(posting)) this.offerRow(i, q, top, cube);
        }
      }
    }
    for (const written of this.index.writtenRows()) offerWritten(written, q, top, cube);
  }

  /** The smallest posting of the key's bigrams; null when one occurs nowhere; undefined for a one-character key (read every row). */
  private rarestPosting(key: string): number | null | undefined {
    let best: number | undefined;
    for (let k = 0; k + 1 < key.length; k++) {
      const p = this.postings.find(key.charCodeAt(k) * 65536 + key.charCodeAt(k + 1));
      if (p < 0) return null;
      if (best === undefined || this.postings.count[p]! < this.postings.count[best]!) best = p;
    }
    return best;
  }
}

/** Suggest texts of rows written since a build, by row (a changed row is a new object). */
const writtenTexts = new WeakMap<IndexRow, string>();

function offerWritten(
  written: { row: IndexRow; x: number; y: number; z: number; json: Buffer },
  q: SuggestRequest,
  top: TopSuggestions,
  cube: [number, number, number] | undefined,
): void {
  const { row } = written;
  let text = writtenTexts.get(row);
  if (text === undefined) {
    text = suggestTextOf(JSON.parse(`${row.head}${row.tail}}`) as Parameters<typeof suggestTextOf>[0], row.text);
    writtenTexts.set(row, text);
  }
  const match = matchOf(text, q.keys);
  if (!match || !top.wants(rankOf(match))) return;
  let knn = 0;
  if (cube) {
    const d0 = written.x - cube[0];
    const d1 = written.y - cube[1];
    const d2 = written.z - cube[2];
    let s = d0 * d0;
    s += d1 * d1;
    s += d2 * d2;
    knn = Math.sqrt(s);
  }
  top.offer({
    rank: rankOf(match),
    match,
    knn,
    name: nameKeyOf(text),
    id: row.id,
    answer: (rest) => ({ json: written.json, start: 0, end: written.json.length, distance: rest }),
  });
}

/** The rest of a suggestion's JSON after the POI's fields: distance_m around a point, and how it matched. */
export const suggestionRest = (c: SuggestCandidate, point: boolean): string =>
  `${point ? `,"distance_m":${distanceOfChord(c.knn)}` : ''},"match":"${c.match}"}`;
