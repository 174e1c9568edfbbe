/**
 * One dataset's POIs in memory for point searches (issue 15): coordinates in a static kdbush
 * index walked nearest-first by geokdbush, each POI's answer already serialised, and the writes
 * applied since the index was built kept beside it (tombstones and a small map of changed rows)
 * until the next rebuild.
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
}

export function prepareQuery(q: PointQuery): PreparedQuery {
  const [cx, cy, cz] = cubeOf(q.latitude, q.longitude);
  const limitEd = q.radius === undefined ? undefined : q.radius * RADIUS_TO_EARTHDISTANCE;
  return { ...q, cx, cy, cz, limitEd, maxKm: q.radius === undefined ? Infinity : (q.radius / 1000) * (1 + 1e-9) + 1e-6 };
}

/** One match: its order key and its answer as JSON, without the closing brace (distance_m goes last). */
export interface Match {
  knn: number;
  id: string;
  /** earth_distance × EARTHDISTANCE_TO_MEAN, as distance_m. */
  distance: number;
  json: Buffer;
}

/** A POI as the index holds it. */
export interface IndexRow {
  id: string;
  latitude: number;
  longitude: number;
  /** The POI's answer (toPoi without distance_m) as JSON, without the closing brace. */
  json: string;
}

/** Bytes an id string costs in V8 (header and 36 one-byte characters, rounded). */
const ID_BYTES = 56;

const byKey = (a: Match, b: Match) => a.knn - b.knn || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A Float64Array that grows by doubling. */
function grow(a: Float64Array<ArrayBuffer>, need: number): Float64Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Float64Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * Collects a dataset's rows page by page, doing each row's work as its page arrives (the build's
 * cost spread over its pages, so the server keeps answering), then builds the index in one step:
 * kdbush's sort, the only part that takes the whole dataset at once.
 */
export class DatasetIndexBuilder {
  readonly ids: string[] = [];
  readonly position = new Map<string, number>();
  lat = new Float64Array(1024);
  lon = new Float64Array(1024);
  cube = new Float64Array(3 * 1024);
  /** Each page's answers in one buffer; a row's answer is at (chunk, start) with its length. */
  readonly chunks: Buffer[] = [];
  chunkOf = new Float64Array(1024);
  startOf = new Float64Array(1024);
  bytes = 0;

  constructor(readonly datasetId: string) {}

  get count(): number {
    return this.ids.length;
  }

  add(rows: IndexRow[]): void {
    const at = this.ids.length;
    const need = at + rows.length;
    this.lat = grow(this.lat, need);
    this.lon = grow(this.lon, need);
    this.cube = grow(this.cube, 3 * need);
    this.chunkOf = grow(this.chunkOf, need + 1);
    this.startOf = grow(this.startOf, need + 1);
    const texts: string[] = [];
    let offset = 0;
    const chunk = this.chunks.length;
    rows.forEach((r, k) => {
      const i = at + k;
      this.ids.push(r.id);
      this.position.set(r.id, i);
      this.lat[i] = r.latitude;
      this.lon[i] = r.longitude;
      const [x, y, z] = cubeOf(r.latitude, r.longitude);
      this.cube[3 * i] = x;
      this.cube[3 * i + 1] = y;
      this.cube[3 * i + 2] = z;
      texts.push(r.json);
      this.chunkOf[i] = chunk;
      this.startOf[i] = offset;
      offset += Buffer.byteLength(r.json);
    });
    // The end of the last row: the start of the next page's first (chunk + 1, 0).
    this.chunkOf[need] = chunk + 1;
    this.startOf[need] = 0;
    const buffer = Buffer.from(texts.join(''));
    this.chunks.push(buffer);
    this.bytes += buffer.length + rows.length * ROW_BYTES;
  }

  finish(): DatasetIndex {
    return new DatasetIndex(this);
  }
}

/** Per row beyond its JSON: the id string and its map entry, seven doubles and kdbush's coordinates and id. */
const ROW_BYTES = ID_BYTES + 40 + 8 * 7 + 16 + 4;

export class DatasetIndex {
  readonly datasetId: string;
  private readonly tree: KDBush;
  private readonly ids: string[];
  /** Where each base row is (its id's position in the arrays). */
  private readonly position: Map<string, number>;
  private readonly lat: Float64Array;
  private readonly lon: Float64Array;
  private readonly cube: Float64Array;
  private readonly chunks: Buffer[];
  private readonly chunkOf: Float64Array;
  private readonly startOf: Float64Array;
  private readonly dead: Uint8Array;
  private deadCount = 0;
  /** Rows written since the build (inserted or changed), by id. */
  private readonly extra = new Map<string, { row: IndexRow; x: number; y: number; z: number; json: Buffer }>();
  private extraBytes = 0;
  readonly baseBytes: number;

  constructor(b: DatasetIndexBuilder) {
    this.datasetId = b.datasetId;
    const n = b.ids.length;
    this.ids = b.ids;
    this.position = b.position;
    this.lat = b.lat;
    this.lon = b.lon;
    this.cube = b.cube;
    this.chunks = b.chunks;
    this.chunkOf = b.chunkOf;
    this.startOf = b.startOf;
    this.tree = new KDBush(Math.max(n, 1));
    for (let i = 0; i < n; i++) this.tree.add(this.lon[i]!, this.lat[i]!);
    // kdbush cannot hold zero items: an empty dataset holds one point that is always dead.
    if (n === 0) this.tree.add(0, 0);
    this.tree.finish();
    this.dead = new Uint8Array(Math.max(n, 1));
    if (n === 0) this.dead[0] = 1;
    this.baseBytes = b.bytes + this.tree.data.byteLength;
  }

  /** The answer of base row i (a view into its page's buffer). */
  private jsonOf(i: number): Buffer {
    const chunk = this.chunks[this.chunkOf[i]!]!;
    const end = this.chunkOf[i + 1] === this.chunkOf[i] ? this.startOf[i + 1]! : chunk.length;
    return chunk.subarray(this.startOf[i]!, end);
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

  has(id: string): boolean {
    if (this.extra.has(id)) return true;
    const i = this.baseIndexOf(id);
    return i >= 0 && !this.dead[i];
  }

  /** A POI inserted into this dataset or changed in it. */
  upsert(row: IndexRow): void {
    this.remove(row.id);
    const [x, y, z] = cubeOf(row.latitude, row.longitude);
    const json = Buffer.from(row.json);
    this.extra.set(row.id, { row, x, y, z, json });
    this.extraBytes += json.length + ID_BYTES + 120;
  }

  /** A POI deleted or moved out of this dataset. */
  remove(id: string): void {
    const e = this.extra.get(id);
    if (e) {
      this.extra.delete(id);
      this.extraBytes -= e.json.length + ID_BYTES + 120;
    }
    const i = this.baseIndexOf(id);
    if (i >= 0 && !this.dead[i]) {
      this.dead[i] = 1;
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

  /** Whether a row at this chord is inside the query's radius (the SQL filter's comparison). */
  private inRadius(chord: number, q: PreparedQuery): boolean {
    return q.limitEd === undefined || chordToEarthDistance(chord) <= q.limitEd;
  }

  /** Whether a row at this chord and id comes after the query's cursor. */
  private afterKey(chord: number, id: string, q: PreparedQuery): boolean {
    const a = q.after;
    return !a || chord > a.hi || (chord >= a.lo && id > a.id);
  }

  private matchOf(knn: number, id: string, json: Buffer): Match {
    return { knn, id, distance: chordToEarthDistance(knn) * EARTHDISTANCE_TO_MEAN, json };
  }

  /**
   * The first `n` matches in (KNN value, id) order, or every match when there are fewer. geokdbush
   * yields candidates nearest first by its haversine; they are re-ordered by the chord. The cut is
   * exact once the n-th match lies closer than the last candidate read (every candidate not read
   * is at least that far); otherwise more candidates are read.
   */
  nearest(q: PreparedQuery, n: number): Match[] {
    const base: Match[] = [];
    // Only dead rows and rows before the cursor are skipped in the walk: a row outside the radius
    // must reach geokdbush's queue, whose first point past maxKm ends the walk (a predicate that
    // dropped them would make it expand every node of the tree).
    const predicate = (i: number) => {
      if (this.dead[i]) return false;
      return !q.after || this.afterKey(this.chord(this.cube[3 * i]!, this.cube[3 * i + 1]!, this.cube[3 * i + 2]!, q), this.ids[i]!, q);
    };
    const total = this.ids.length;
    const kmOf = (i: number) => haversineKm(q.longitude, q.latitude, this.lon[i]!, this.lat[i]!);
    for (let want = n + 32; ; want *= 4) {
      const found = around(this.tree, q.longitude, q.latitude, want, q.maxKm, predicate);
      const matches: Match[] = [];
      let outsideKm = Infinity;
      for (const i of found) {
        const c = this.chord(this.cube[3 * i]!, this.cube[3 * i + 1]!, this.cube[3 * i + 2]!, q);
        if (this.inRadius(c, q)) matches.push(this.matchOf(c, this.ids[i]!, this.jsonOf(i)));
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
        (matches.length >= n && kmOf(this.baseIndexOf(matches[n - 1]!.id)) < lastKm - 1e-9);
      if (done) {
        base.push(...matches.slice(0, n));
        break;
      }
    }
    if (!this.extra.size) return base;
    for (const e of this.extra.values()) {
      const c = this.chord(e.x, e.y, e.z, q);
      if (this.inRadius(c, q) && this.afterKey(c, e.row.id, q)) base.push(this.matchOf(c, e.row.id, e.json));
    }
    base.sort(byKey);
    return base.slice(0, n);
  }
}
