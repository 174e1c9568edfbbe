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
import { matchOf, nameKeyOf, rankOf, SUGGEST_MATCHES, suggestTextOf, type SuggestMatch } from './suggest-keys';

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

  /** Whether a candidate of this rank could still enter. */
  wants(rank: number): boolean {
    return !this.full || rank <= this.list[this.list.length - 1]!.rank;
  }

  /** Whether a candidate with these keys would enter (checked before one is made). */
  beats(rank: number, knn: number, name: string, id: string): boolean {
    if (!this.full) return true;
    const w = this.list[this.list.length - 1]!;
    if (rank !== w.rank) return rank < w.rank;
    if (this.point) {
      if (knn !== w.knn) return knn < w.knn;
    } else {
      if (name.length !== w.name.length) return name.length < w.name.length;
      if (name !== w.name) return name < w.name;
    }
    return id < w.id;
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

/** Rows per slice of a build between two yields to the event loop. */
const SLICE = 5_000;
/** High bit of an entry: the key is a reading's (else the name's). */
const READING = 0x80000000;
/** Around a point, a rank with more rows than this is read nearest first through the tree instead of row by row. */
const DIRECT_ROWS_MAX = 20_000;
const tuning = { directRowsMax: DIRECT_ROWS_MAX };
/** Tests: another threshold for the tree walk (0: always walk); undefined restores it. */
export function tuneSuggest(t?: Partial<typeof tuning>): void {
  Object.assign(tuning, { directRowsMax: DIRECT_ROWS_MAX }, t);
}
/** How much dearer a row of the tree walk is than a row read directly (its queue and predicate). */
const WALK_COST = 5;
/** Past this many rows read, the walk gives way to reading the rank's rows one by one. */
const WALK_ROWS_MAX = 65_536;
/** Rows the tree walk reads beyond the page (geokdbush's haversine order and the chord may differ in the last bits). */
const WALK_SLACK = 32;
/** Ranks (suggest-keys rankOf) of the groups a query matches: 255 none. */
const NO_RANK = 255;

/**
 * A dataset's keys. Rows with the same suggest text (a chain's shops, a name repeated) form one
 * group: the sorted keys and the postings hold groups, and a group's rows are kept in id order.
 */
export class SuggestTable {
  private readonly groupRank: Uint8Array;
  private constructor(
    private readonly index: DatasetIndex,
    private readonly groupText: string[],
    private readonly groupRows: Uint32Array[],
    private readonly rowGroup: Uint32Array,
    private readonly keys: string[],
    private readonly entries: Uint32Array,
    private readonly postings: BigramPostings,
    readonly bytes: number,
  ) {
    this.groupRank = new Uint8Array(groupText.length).fill(NO_RANK);
  }

  /** Reads the index's rows in slices (yielding between them), then sorts the rows by id and the keys. */
  static async build(index: DatasetIndex): Promise<SuggestTable> {
    const n = index.baseRows;
    const groupOf = new Map<string, number>();
    const groupText: string[] = [];
    const rowGroup = new Uint32Array(n);
    for (let from = 0; from < n; from += SLICE) {
      const to = Math.min(n, from + SLICE);
      for (let i = from; i < to; i++) {
        const text = suggestTextOf(fieldsOf(index.baseRowJson(i)), index.baseRowText(i));
        let g = groupOf.get(text);
        if (g === undefined) {
          g = groupText.length;
          groupText.push(text);
          groupOf.set(text, g);
        }
        rowGroup[i] = g;
      }
      await yieldToLoop();
    }
    // Each group's rows in id order, sorted group by group so the event loop is yielded between.
    const sizes = new Uint32Array(groupText.length);
    for (let i = 0; i < n; i++) sizes[rowGroup[i]!]! += 1;
    const groupRows = Array.from(sizes, (size) => new Uint32Array(size));
    const filled = new Uint32Array(groupText.length);
    for (let i = 0; i < n; i++) {
      const g = rowGroup[i]!;
      groupRows[g]![filled[g]!++] = i;
    }
    const byId = (a: number, b: number) => index.compareIds(a, b);
    let sorted = 0;
    for (const rows of groupRows) {
      if (rows.length < 2) continue;
      rows.sort(byId);
      sorted += rows.length;
      if (sorted >= SLICE) {
        sorted = 0;
        await yieldToLoop();
      }
    }
    // The keys sorted with their entry after a NUL (below every key character: a shorter key
    // first), in buckets of their first two code units (the NUL included), sorted one by one and
    // yielding between: buckets in code-unit order, each sorted, is the whole array sorted.
    const buckets = new Map<number, string[]>();
    groupText.forEach((text, g) =>
      text.split(' ').forEach((key, k) => {
        if (!key) return;
        const tagged = `${key}\u0000${((k === 0 ? g : g | READING) >>> 0).toString(36)}`;
        const b = tagged.charCodeAt(0) * 65536 + tagged.charCodeAt(1);
        const bucket = buckets.get(b);
        if (bucket) bucket.push(tagged);
        else buckets.set(b, [tagged]);
      }),
    );
    const keys: string[] = [];
    const entryList: number[] = [];
    sorted = 0;
    for (const b of [...buckets.keys()].sort((x, y) => x - y)) {
      const bucket = buckets.get(b)!.sort();
      for (const t of bucket) {
        const at = t.indexOf('\u0000');
        keys.push(t.slice(0, at));
        entryList.push(parseInt(t.slice(at + 1), 36));
      }
      sorted += bucket.length;
      if (sorted >= SLICE) {
        sorted = 0;
        await yieldToLoop();
      }
    }
    const entries = Uint32Array.from(entryList);
    const postings = new BigramPostings();
    for (let g = 0; g < groupText.length; g += SLICE) {
      postings.addTexts(groupText.slice(g, g + SLICE).join('\n'), g);
      await yieldToLoop();
    }
    postings.finish();
    let bytes = postings.bytes + n * 4 * 2 + entries.byteLength + groupText.length * 60;
    for (const text of groupText) bytes += 2 * text.length;
    for (const key of keys) bytes += 2 * key.length + 40;
    return new SuggestTable(index, groupText, groupRows, rowGroup, keys, entries, postings, bytes);
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

  /** Offers this dataset's matches of the query to `top` (base rows, then rows written since the build). */
  suggest(q: SuggestRequest, top: TopSuggestions): void {
    const cube = q.point ? cubeOf(q.point.latitude, q.point.longitude) : undefined;
    const keySet = new Set(q.keys);
    const byRank: number[][] = [[], [], [], []];
    const touched: number[] = [];
    const mark = (g: number, rank: number) => {
      if (this.groupRank[g] !== NO_RANK) return;
      this.groupRank[g] = rank;
      touched.push(g);
      byRank[rank]!.push(g);
    };
    try {
      // Names first (their entry's key is the name's: exact when it is a query key), then readings
      // of groups whose name did not match. A prefix's entries are one run of the sorted keys.
      for (const key of q.keys) {
        for (let e = this.lowerBound(key); e < this.keys.length && this.keys[e]!.startsWith(key); e++) {
          const entry = this.entries[e]!;
          if (entry < READING) mark(entry, keySet.has(this.keys[e]!) ? 0 : 1);
        }
      }
      for (const key of q.keys) {
        for (let e = this.lowerBound(key); e < this.keys.length && this.keys[e]!.startsWith(key); e++) {
          const entry = this.entries[e]!;
          if (entry >= READING) mark((entry & ~READING) >>> 0, 2);
        }
      }
      for (let rank = 0; rank < 4; rank++) {
        if (!top.wants(rank)) break;
        if (rank === 3) this.findContains(q.keys, mark);
        if (byRank[rank]!.length) this.offerGroups(byRank[rank]!, rank, q.point, cube, top);
      }
    } finally {
      for (const g of touched) this.groupRank[g] = NO_RANK;
    }
    for (const written of this.index.writtenRows()) offerWritten(written, q, top, cube);
  }

  /** Groups whose name or a reading holds a query key (not already of a better rank). */
  private findContains(keys: string[], mark: (g: number, rank: number) => void): void {
    for (const key of keys) {
      const posting = this.rarestPosting(key);
      if (posting === null) continue;
      const groups = posting === undefined ? undefined : this.postings.rows(posting);
      const count = groups ? groups.length : this.groupText.length;
      for (let k = 0; k < count; k++) {
        const g = groups ? groups[k]! : k;
        if (this.groupRank[g] === NO_RANK && this.groupText[g]!.includes(key)) mark(g, 3);
      }
    }
  }

  private offerRow(i: number, rank: number, knn: number, name: string, top: TopSuggestions): void {
    const id = this.index.idOf(i);
    if (!top.beats(rank, knn, name, id)) return;
    const index = this.index;
    top.offer({ rank, match: SUGGEST_MATCHES[rank]!, knn, name, id, answer: (rest) => index.baseAnswer(i, rest) });
  }

  /** Offers the live rows of a rank's groups: around a point the nearest, else the first by name, then id. */
  private offerGroups(groups: number[], rank: number, point: SuggestRequest['point'], cube: [number, number, number] | undefined, top: TopSuggestions): void {
    const index = this.index;
    if (!cube || !point) {
      for (const g of groups) {
        const name = nameKeyOf(this.groupText[g]!);
        // A group's rows share its name: past the page's worst, none of them enters.
        if (!top.beats(rank, 0, name, '')) continue;
        let offered = 0;
        for (const i of this.groupRows[g]!) {
          if (offered >= top.n) break;
          if (!index.isLive(i)) continue;
          this.offerRow(i, rank, 0, name, top);
          offered += 1;
        }
      }
      return;
    }
    let rows = 0;
    for (const g of groups) rows += this.groupRows[g]!.length;
    // Row by row costs every row; the walk about (page + slack) × rows in the dataset / rows of the rank, each a few times dearer.
    if (rows <= tuning.directRowsMax && rows * rows <= WALK_COST * (top.n + WALK_SLACK) * index.baseRows) {
      for (const g of groups) {
        const name = nameKeyOf(this.groupText[g]!);
        for (const i of this.groupRows[g]!) {
          if (index.isLive(i)) this.offerRow(i, rank, index.chordFrom(i, cube[0], cube[1], cube[2]), name, top);
        }
      }
      return;
    }
    // Many rows: nearest first through the tree, those of this rank's groups only.
    // Exact once the n-th nearest read lies clearly nearer than the last row read (every row not
    // read is at least that far, so none ties with the page's last): else a larger walk.
    const accept = (i: number) => this.groupRank[this.rowGroup[i]!] === rank;
    for (let want = top.n + WALK_SLACK; ; want *= 4) {
      const found = want > WALK_ROWS_MAX ? undefined : index.nearestRows(point.latitude, point.longitude, want, accept);
      if (!found) {
        for (const g of groups) {
          const name = nameKeyOf(this.groupText[g]!);
          for (const i of this.groupRows[g]!) if (index.isLive(i)) this.offerRow(i, rank, index.chordFrom(i, cube[0], cube[1], cube[2]), name, top);
        }
        return;
      }
      const chords = found.map((i) => index.chordFrom(i, cube[0], cube[1], cube[2]));
      const sorted = [...chords].sort((a, b) => a - b);
      if (found.length < want || sorted[Math.min(top.n, sorted.length) - 1]! < sorted[sorted.length - 1]! - 1e-6) {
        found.forEach((i, k) => this.offerRow(i, rank, chords[k]!, nameKeyOf(this.groupText[this.rowGroup[i]!]!), top));
        return;
      }
    }
  }

  /** The smallest posting of the key's bigrams; null when one occurs nowhere; undefined for a one-character key (read every group). */
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
