import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARTHDISTANCE_RADIUS_M, EARTH_MEAN_RADIUS_M } from '@poi/shared/geo';
import { answersJson, cubeOf, DatasetIndex, DatasetIndexBuilder, prepareQuery, tuneIndexSearch, type IndexPage, type PointQuery } from './dataset-index';

/** A build page as PostgreSQL's page query writes it, from rows given here. */
function pageOf(rows: Array<{ id: string; lat: number; lon: number; text: string }>): IndexPage {
  const heads = rows.map((r) => `{"poi_id":"${r.id}"`);
  const tails = rows.map(() => ',"x":1');
  return {
    count: rows.length,
    ids: rows.map((r) => r.id).join(''),
    coords: rows.map((r) => `${r.lat},${r.lon}`).join(','),
    json: rows.map((_, k) => heads[k]! + tails[k]!).join(''),
    jsonLengths: rows.map((_, k) => `${Buffer.byteLength(heads[k]!)},${Buffer.byteLength(tails[k]!)}`).join(','),
    texts: rows.map((r) => `${r.text}\n`).join(''),
    textLengths: rows.map((r) => String(Buffer.byteLength(r.text))).join(','),
  };
}

const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const WORDS = ['カフェ', 'ラーメン', '東京', 'sakura', 'ホテル', '寿司'];

const rowArb = fc.record({
  lat: fc.double({ min: 35.6, max: 35.75, noNaN: true }),
  lon: fc.double({ min: 139.6, max: 139.85, noNaN: true }),
  words: fc.subarray(WORDS, { maxLength: 3 }),
});

function build(rows: Array<{ lat: number; lon: number; words: string[] }>, pageSize = 37): DatasetIndex {
  const b = new DatasetIndexBuilder('d');
  const all = rows.map((r, k) => ({ id: idOf(k + 1), lat: r.lat, lon: r.lon, text: r.words.join(' ') }));
  for (let at = 0; at < all.length; at += pageSize) b.add(pageOf(all.slice(at, at + pageSize)));
  return b.finish();
}

/** The ids the index gives for a query, and its count up to `count`, found one way. */
function ids(index: DatasetIndex, q: PointQuery, n: number, count: number, tuning: Parameters<typeof tuneIndexSearch>[0]) {
  tuneIndexSearch(tuning);
  try {
    const found = index.search(prepareQuery(q), n, count);
    return { ids: found!.matches.map((m) => m.id), counted: found!.counted };
  } finally {
    tuneIndexSearch();
  }
}

describe('dataset index: every way of finding rows gives the same rows', () => {
  it('boxes, the nearest-first walk and the bigram postings agree, with and without radius and words', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { minLength: 1, maxLength: 300 }),
        fc.record({
          lat: fc.double({ min: 35.6, max: 35.75, noNaN: true }),
          lon: fc.double({ min: 139.6, max: 139.85, noNaN: true }),
          radius: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
          words: fc.subarray(WORDS, { maxLength: 2 }),
          n: fc.integer({ min: 0, max: 120 }),
          // The count's bound: the total cap and one, or none (a cursor's page), or any.
          count: fc.oneof(fc.constant(101), fc.constant(0), fc.integer({ min: 0, max: 150 })),
        }),
        (rows, q) => {
          const index = build(rows);
          const query: PointQuery = { latitude: q.lat, longitude: q.lon, radius: q.radius, words: q.words.length ? q.words : undefined };
          const walk = ids(index, query, q.n, q.count, { boxes: false, postingsScanMax: 0 });
          expect(ids(index, query, q.n, q.count, { boxes: true, postingsScanMax: 0 })).toEqual(walk);
          expect(ids(index, query, q.n, q.count, { postingsScanMax: Infinity })).toEqual(walk);
          // Brute force: every row within the radius holding every word, by (chord, id), the
          // radius compared as pois.repository's SQL compares it.
          const [cx, cy, cz] = cubeOf(q.lat, q.lon);
          const R = EARTHDISTANCE_RADIUS_M;
          const expected = rows
            .map((r, k) => {
              const [x, y, z] = cubeOf(r.lat, r.lon);
              const chord = Math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2);
              return { id: idOf(k + 1), chord, words: r.words };
            })
            .filter((r) => q.radius === undefined || 2 * R * Math.asin(Math.min(1, r.chord / (2 * R))) <= q.radius * (R / EARTH_MEAN_RADIUS_M))
            .filter((r) => q.words.every((w) => r.words.includes(w)))
            .sort((a, b) => a.chord - b.chord || (a.id < b.id ? -1 : 1))
            .map((r) => r.id);
          expect(walk).toEqual({ ids: expected.slice(0, q.n), counted: Math.min(expected.length, q.count) });
        },
      ),
      { numRuns: 200, seed: 15 },
    );
  });

  it('a POI that comes again in a later page is kept once, as its later copy', () => {
    const b = new DatasetIndexBuilder('d');
    b.add(pageOf([{ id: idOf(1), lat: 35.7, lon: 139.7, text: 'マエ' }, { id: idOf(2), lat: 35.71, lon: 139.71, text: 'ホカ' }]));
    b.add(pageOf([{ id: idOf(1), lat: 35.72, lon: 139.72, text: 'アト' }]));
    const index = b.finish();
    expect(index.size).toBe(2);
    const near = index.search(prepareQuery({ latitude: 35.72, longitude: 139.72 }), 10, 10)!.matches;
    expect(near.map((m) => m.id)).toEqual([idOf(1), idOf(2)]);
    expect(JSON.parse(answersJson([index.answerOf(near[0]!)]).toString())[0]).toMatchObject({ poi_id: idOf(1), latitude: 35.72, longitude: 139.72 });
    expect(index.search(prepareQuery({ latitude: 35.72, longitude: 139.72, words: ['マエ'] }), 10, 10)!.matches).toEqual([]);
    expect(index.search(prepareQuery({ latitude: 35.72, longitude: 139.72, words: ['アト'] }), 10, 10)!.matches.map((m) => m.id)).toEqual([idOf(1)]);
  });

  it("POIs sharing one point come in id order; past the walk's bound (thousands of ties) the search is left to PostgreSQL", () => {
    const at = { latitude: 35.681236, longitude: 139.767125 };
    const shared = (count: number) => build(Array.from({ length: count }, () => ({ lat: at.latitude, lon: at.longitude, words: [] })), 1000);
    // Ids given in order, so the first page is the lowest ids; the radius is not what stops the walk.
    const few = shared(1_000).search(prepareQuery({ ...at, radius: 1_000 }), 20, 101)!;
    expect(few.matches.map((m) => m.id)).toEqual(Array.from({ length: 20 }, (_, k) => idOf(k + 1)));
    expect(few.counted).toBe(101);
    tuneIndexSearch({ boxes: false });
    try {
      // Each round of the walk reads 4× the last: 10,000 ties need a round past WALK_ROWS_MAX.
      expect(shared(10_000).search(prepareQuery(at), 20, 101)).toBeUndefined();
    } finally {
      tuneIndexSearch();
    }
  });

  it('an empty dataset answers nothing; rows written since the build are found, with their coordinates, until removed', () => {
    const index = new DatasetIndexBuilder('d').finish();
    const q = prepareQuery({ latitude: 35.7, longitude: 139.7, radius: 1_000 });
    expect(index.search(q, 10, 101)).toEqual({ matches: [], counted: 0 });
    index.upsert({ id: idOf(7), latitude: 35.7001, longitude: 139.7, head: `{"poi_id":"${idOf(7)}"`, tail: ',"x":1', text: 'カフェ' });
    const found = index.search(q, 10, 101)!;
    expect(found.counted).toBe(1);
    expect(JSON.parse(answersJson(found.matches.map((m) => index.answerOf(m))).toString())[0]).toMatchObject({ poi_id: idOf(7), latitude: 35.7001, longitude: 139.7, x: 1 });
    index.remove(idOf(7));
    expect(index.search(q, 10, 101)).toEqual({ matches: [], counted: 0 });
  });

  it('a removed base row is never found again, whatever way rows are found', () => {
    const rows = Array.from({ length: 200 }, (_, k) => ({ lat: 35.6 + (k % 20) * 0.005, lon: 139.6 + Math.floor(k / 20) * 0.005, words: k % 3 ? ['カフェ'] : ['寿司'] }));
    const index = build(rows);
    const gone = [idOf(1), idOf(2), idOf(50), idOf(200)];
    for (const id of gone) index.remove(id);
    expect(index.size).toBe(196);
    for (const tuning of [{ boxes: true, postingsScanMax: 0 }, { boxes: false, postingsScanMax: 0 }, { postingsScanMax: Infinity }]) {
      for (const words of [undefined, ['カフェ'], ['寿司']]) {
        const found = ids(index, { latitude: 35.65, longitude: 139.625, words }, 300, 300, tuning);
        expect(found.ids.filter((id) => gone.includes(id))).toEqual([]);
        expect(found.counted).toBe(rows.filter((r, k) => !gone.includes(idOf(k + 1)) && (!words || r.words.includes(words[0]!))).length);
      }
    }
  });
});


describe('dataset index snapshot', () => {
  /** The snapshot's buffers as a file would hold them: one after another at any offset, read back as views of one buffer. */
  function throughOneBuffer(s: ReturnType<DatasetIndex['toSnapshot']>, pad: number): ReturnType<DatasetIndex['toSnapshot']> {
    const total = s.buffers.reduce((sum, b) => sum + b.byteLength + pad, 0);
    const file = Buffer.alloc(total + 1);
    let at = 1;
    const views: Uint8Array[] = [];
    for (const b of s.buffers) {
      file.set(b, at);
      views.push(file.subarray(at, at + b.byteLength));
      at += b.byteLength + pad;
    }
    return { header: JSON.parse(JSON.stringify(s.header)) as typeof s.header, buffers: views };
  }

  it('an index read back from its snapshot gives the same answers, written rows and removals included', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { minLength: 0, maxLength: 200 }),
        fc.array(fc.record({ lat: fc.double({ min: 35.6, max: 35.75, noNaN: true }), lon: fc.double({ min: 139.6, max: 139.85, noNaN: true }), radius: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }), words: fc.subarray(WORDS, { maxLength: 2 }) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 7 }),
        (rows, queries, pad) => {
          const index = build(rows, 23);
          // Some rows removed and some written since the build.
          for (let k = 0; k < rows.length; k += 7) index.remove(idOf(k + 1));
          index.upsert({ id: idOf(100_000), latitude: 35.7, longitude: 139.7, head: `{"poi_id":"${idOf(100_000)}"`, tail: ',"x":2', text: 'カフェ 東京' });
          if (rows.length > 3) index.upsert({ id: idOf(3), latitude: 35.71, longitude: 139.71, head: `{"poi_id":"${idOf(3)}"`, tail: ',"x":3', text: 'ラーメン' });
          const copy = DatasetIndex.fromSnapshot(throughOneBuffer(index.toSnapshot(), pad));
          expect(copy.size).toBe(index.size);
          expect(copy.datasetId).toBe(index.datasetId);
          for (const q of queries) {
            const query: PointQuery = { latitude: q.lat, longitude: q.lon, radius: q.radius, words: q.words.length ? q.words : undefined };
            for (const tuning of [{ boxes: true, postingsScanMax: 0 }, { boxes: false, postingsScanMax: 0 }, { postingsScanMax: Infinity }]) {
              const a = ids(index, query, 30, 101, tuning);
              expect(ids(copy, query, 30, 101, tuning)).toEqual(a);
            }
            const a = index.search(prepareQuery(query), 30, 101)!;
            const b = copy.search(prepareQuery(query), 30, 101)!;
            expect(answersJson(b.matches.map((m) => copy.answerOf(m))).toString()).toEqual(answersJson(a.matches.map((m) => index.answerOf(m))).toString());
          }
          // The copy is an index of its own: a write to it leaves the original as it was.
          copy.remove(idOf(100_000));
          expect(copy.size).toBe(index.size - 1);
        },
      ),
      { numRuns: 60, seed: 34 },
    );
  });

  it('a snapshot of another format, or whose buffers do not fit its header, is refused', () => {
    const index = build([{ lat: 35.7, lon: 139.7, words: ['カフェ'] }, { lat: 35.71, lon: 139.71, words: [] }]);
    const s = index.toSnapshot();
    expect(() => DatasetIndex.fromSnapshot({ header: { ...s.header, format: s.header.format + 1 }, buffers: s.buffers })).toThrow(/format/);
    expect(() => DatasetIndex.fromSnapshot({ header: s.header, buffers: s.buffers.slice(1) })).toThrow(/snapshot/);
    expect(() => DatasetIndex.fromSnapshot({ header: { ...s.header, rows: 3 }, buffers: s.buffers })).toThrow(/snapshot/);
    expect(() => DatasetIndex.fromSnapshot({ header: s.header, buffers: s.buffers.map((b, k) => (k === 2 ? b.subarray(1) : b)) })).toThrow(/snapshot/);
  });
});

describe('dataset index records', () => {
  /** Rows as the page query writes them: the usual prefix, a name, and a tail of fields some of which repeat. */
  const dataset = '11111111-2222-4333-8444-555555555555';
  const fieldsArb = fc.record({
    lat: fc.double({ min: 35.6, max: 35.75, noNaN: true }),
    lon: fc.double({ min: 139.6, max: 139.85, noNaN: true }),
    name: fc.string({ maxLength: 12 }),
    address: fc.oneof(fc.constant(null), fc.string({ maxLength: 20 })),
    category: fc.constantFrom('カフェ', '寿司', null),
    tags: fc.subarray(['Wi-Fi', '駐車場', '個室']),
    stamp: fc.constantFrom('2026-11-26T17:42:08.789Z', '2026-11-27T01:02:03.004Z'),
    usual: fc.boolean(),
  });

  it("every answer is written back byte for byte (prefix, name, coordinates, tail), whether its tail's end is a dictionary piece or not", () => {
    fc.assert(
      fc.property(fc.array(fieldsArb, { minLength: 1, maxLength: 120 }), (rows) => {
        const heads = rows.map((r, k) => (r.usual ? `{"poi_id":"${idOf(k + 1)}","dataset_id":"${dataset}","name":${JSON.stringify(r.name)}` : `{"poi_id":"${idOf(k + 1)}","name":${JSON.stringify(r.name)}`));
        const tails = rows.map(
          (r) =>
            `,"address":${JSON.stringify(r.address)},"category":${JSON.stringify(r.category)},"description":null,"tags":${JSON.stringify(r.tags)},"created_at":"${r.stamp}","updated_at":"${r.stamp}"`,
        );
        const page: IndexPage = {
          count: rows.length,
          ids: rows.map((_, k) => idOf(k + 1)).join(''),
          coords: rows.map((r) => `${r.lat},${r.lon}`).join(','),
          json: rows.map((_, k) => heads[k]! + tails[k]!).join(''),
          jsonLengths: rows.map((_, k) => `${Buffer.byteLength(heads[k]!)},${Buffer.byteLength(tails[k]!)}`).join(','),
          texts: rows.map((r) => `${r.name.replace(/\n/g, ' ')}\n`).join(''),
          textLengths: rows.map((r) => String(Buffer.byteLength(r.name))).join(','),
        };
        const b = new DatasetIndexBuilder(dataset);
        b.add(page);
        const index = b.finish();
        const found = index.search(prepareQuery({ latitude: 35.7, longitude: 139.7 }), rows.length, 0)!;
        expect(found.matches.length).toBe(rows.length);
        for (const m of found.matches) {
          const k = Number.parseInt(m.id.slice(-12), 16) - 1;
          const answer = answersJson([index.answerOf(m)]).toString();
          const expected = `[${heads[k]},"latitude":${rows[k]!.lat},"longitude":${rows[k]!.lon}${tails[k]}`;
          expect(answer.slice(0, expected.length)).toBe(expected);
          expect(answer.slice(expected.length)).toMatch(/^,"distance_m":[0-9.e+-]+\}\]$/);
          expect(index.baseRowJson(m.row)).toBe(expected.slice(1));
        }
        // Tails' ends that repeat are kept once (the usual case of a bulk import).
        if (rows.length >= 60) expect(index.toSnapshot().header.pieces).toBeGreaterThan(0);
        // The snapshot's copy writes the same bytes.
        const copy = DatasetIndex.fromSnapshot(index.toSnapshot());
        const again = copy.search(prepareQuery({ latitude: 35.7, longitude: 139.7 }), rows.length, 0)!;
        expect(answersJson(again.matches.map((m) => copy.answerOf(m)))).toEqual(answersJson(found.matches.map((m) => index.answerOf(m))));
      }),
      { numRuns: 100, seed: 5 },
    );
  });

  it('an id that is not a uuid is refused by the build and found by no removal', () => {
    const b = new DatasetIndexBuilder('d');
    expect(() => b.add(pageOf([{ id: 'not-a-uuid-but-36-characters-long!!!', lat: 35.7, lon: 139.7, text: 'x' }]))).toThrow(/uuid/);
    const index = build([{ lat: 35.7, lon: 139.7, words: [] }]);
    index.remove('NOT-A-UUID');
    expect(index.size).toBe(1);
    index.remove(idOf(1));
    expect(index.size).toBe(0);
  });
});
