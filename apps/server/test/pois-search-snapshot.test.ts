import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshotMeta, refreshSnapshotPosition } from '../src/modules/pois/index-snapshot';
import { bearer, buildAppOn, consoleApi, createTestContext, type Actor, type TestContext } from './helpers';

/**
 * The search index's snapshot on disk: written once a dataset is built, loaded at the next start
 * and caught up from the change log (writes made while the server was down included), with the
 * same answers as PostgreSQL; a file that cannot be trusted is removed and the dataset read from
 * PostgreSQL again.
 */
let ctx: TestContext;
let provider: Actor;
let apiKey: string;
let datasetA: string;
let datasetB: string;
const dir = mkdtempSync(path.join(tmpdir(), 'poi-snapshots-'));
const fileOf = (id: string) => path.join(dir, `${id}.snap`);
/** POIs registered through the API (the writes while down remove and move some). */
const known: Array<{ id: string; dataset: string }> = [];

const SPOTS = [
  { lat: 35.681236, lon: 139.767125 },
  { lat: 35.690921, lon: 139.700258 },
];
const NAMES = ['さくらカフェ', '東京ラーメン', 'Café Blue', '霞ヶ関書店', '寿司処 千代田'];
const KEYWORDS = ['カフェ', 'ラーメン', '東京', 'cafe', '寿司', '取込', '1', 'ない言葉'];

const poiArb = fc.record({
  spot: fc.option(fc.constantFrom(...SPOTS), { nil: undefined, freq: 2 }),
  name: fc.constantFrom(...NAMES),
  lat: fc.double({ min: 35.55, max: 35.8, noNaN: true }),
  lon: fc.double({ min: 139.55, max: 139.9, noNaN: true }),
  inB: fc.boolean(),
});
type PoiSeed = typeof poiArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
async function register(r: PoiSeed, app: FastifyInstance = ctx.app): Promise<void> {
  const dataset = r.inB ? datasetB : datasetA;
  const res = await consoleApi(app, 'POST', '/poi/register', provider, {
    dataset_id: dataset,
    name: `${r.name} ${++serial}`,
    latitude: r.spot ? r.spot.lat : Math.round(r.lat * 1e6) / 1e6,
    longitude: r.spot ? r.spot.lon : Math.round(r.lon * 1e6) / 1e6,
    tags: serial % 2 ? ['a'] : [],
  });
  expect(res.statusCode, res.body).toBe(200);
  known.push({ id: res.json().data.poi.poi_id as string, dataset });
}

function csvOf(n: number, seed: number): string {
  const rows = fc.sample(poiArb, { numRuns: n, seed }).map((r, i) => {
    const lat = r.spot ? r.spot.lat : Math.round(r.lat * 1e6) / 1e6;
    const lon = r.spot ? r.spot.lon : Math.round(r.lon * 1e6) / 1e6;
    return `${r.name}取込 ${seed}-${i},${lat},${lon},東京都`;
  });
  return ['名称,緯度,経度,住所', ...rows].join('\n');
}

async function importCsv(dataset: string, csv: string, app: FastifyInstance = ctx.app) {
  const boundary = `----poi${Math.random().toString(36).slice(2)}`;
  const payload = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="dataset_id"\r\n\r\n${dataset}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="pois.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
  );
  const res = await app.inject({
    method: 'POST',
    url: '/console/v1/poi/bulk-import',
    headers: { ...bearer(provider.token), 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function waitUntil(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const at = Date.now();
  while (!(await ok())) {
    if (Date.now() - at > timeoutMs) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const index = (app: FastifyInstance = ctx.app) => app.searchIndex!;
const ready = (app: FastifyInstance = ctx.app) => waitUntil('index ready', () => index(app).isReady(datasetA) && index(app).isReady(datasetB));

async function publicSearch(query: string, memory: boolean, app: FastifyInstance) {
  app.searchCache.clear();
  if (memory) await index(app).catchUp();
  index(app).setEnabled(memory);
  try {
    const before = index(app).state().served;
    const res = await app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': apiKey } });
    expect(res.statusCode, res.body).toBe(200);
    return { ...(res.json().data as { pois: Array<{ poi_id: string; distance_m: number }>; total: number; total_capped: boolean }), served: index(app).state().served > before };
  } finally {
    index(app).setEnabled(true);
  }
}

/** Random point searches (keywords, radii, offsets, both datasets): the same answers from memory as from PostgreSQL. */
async function sameAsSql(app: FastifyInstance, seed: number) {
  const queryArb = fc.record({
    ids: fc.constantFrom([datasetA], [datasetB], [datasetA, datasetB]),
    lat: fc.oneof(fc.double({ min: 35.55, max: 35.8, noNaN: true }), fc.constantFrom(...SPOTS.map((s) => s.lat))),
    lon: fc.oneof(fc.double({ min: 139.55, max: 139.9, noNaN: true }), fc.constantFrom(...SPOTS.map((s) => s.lon))),
    radius: fc.option(fc.integer({ min: 1, max: 30_000 }), { nil: undefined }),
    limit: fc.integer({ min: 1, max: 40 }),
    offset: fc.integer({ min: 0, max: 60 }),
    keyword: fc.option(fc.constantFrom(...KEYWORDS), { nil: undefined, freq: 2 }),
  });
  await fc.assert(
    fc.asyncProperty(queryArb, async (q) => {
      const query = [
        `dataset_id=${q.ids.join(',')}`,
        `latitude=${q.lat.toFixed(6)}`,
        `longitude=${q.lon.toFixed(6)}`,
        `limit=${q.limit}`,
        `offset=${q.offset}`,
        ...(q.radius === undefined ? [] : [`radius=${q.radius}`]),
        ...(q.keyword === undefined ? [] : [`keyword=${encodeURIComponent(q.keyword)}`]),
      ].join('&');
      const mem = await publicSearch(query, true, app);
      const sql = await publicSearch(query, false, app);
      expect(mem.served, query).toBe(true);
      expect(sql.served).toBe(false);
      expect(mem.pois.map((p) => p.poi_id), query).toEqual(sql.pois.map((p) => p.poi_id));
      expect([mem.total, mem.total_capped], query).toEqual([sql.total, sql.total_capped]);
      mem.pois.forEach((p, i) => {
        expect(Math.abs(p.distance_m - sql.pois[i]!.distance_m)).toBeLessThan(1e-6);
        expect({ ...p, distance_m: 0 }).toEqual({ ...sql.pois[i]!, distance_m: 0 });
      });
    }),
    { numRuns: 30, seed },
  );
}

/** Writes made while the instance with the index is down, through an instance without one. */
async function writeWhileDown(seed: number) {
  const other = await buildAppOn(ctx.database, { SEARCH_INDEX_MAX_MB: '0' });
  try {
    for (const r of fc.sample(poiArb, { numRuns: 8, seed })) await register(r, other);
    for (const victim of known.splice(seed % 5, 3)) {
      expect((await consoleApi(other, 'POST', `/poi/remove/${victim.id}`, provider)).statusCode).toBe(200);
    }
    const [moved] = known.splice(seed % 7, 1);
    const to = moved!.dataset === datasetA ? datasetB : datasetA;
    expect((await consoleApi(other, 'POST', `/poi/move/${moved!.id}`, provider, { target_dataset_id: to })).statusCode).toBe(200);
    known.push({ id: moved!.id, dataset: to });
    // A change of a POI's fields (name, place) in place.
    const [changed] = known.slice(-1);
    await ctx.query(`UPDATE pois SET name = name || ' 改', latitude = latitude + 0.001, updated_at = now() WHERE id = $1`, [changed!.id]);
  } finally {
    await other.close();
  }
}

/** Closes the instance (which saves its snapshots), lets `whileDown` run, and starts a new one on the same snapshot directory. */
async function restart(whileDown: () => Promise<void> = async () => {}) {
  await ctx.app.close();
  await whileDown();
  ctx.app = await buildAppOn(ctx.database, { SEARCH_INDEX_SNAPSHOT_DIR: dir });
  await ready();
}

beforeAll(async () => {
  ctx = await createTestContext({ SEARCH_INDEX_SNAPSHOT_DIR: dir });
  provider = await ctx.newProvider('provider');
  const consumer = await ctx.newUser('corporate', 'consumer');
  await ctx.query(
    `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
     VALUES ('corporate', now() - interval '1 second', 0.05, 1000, 7000, 1000000, 10)`,
  );
  ctx.app.changes.changed('pricing');
  apiKey = (await consoleApi(ctx.app, 'POST', '/api-keys', consumer, { name: '保存' })).json().data.key;
  datasetA = await ctx.newDataset(provider, { name: '保存A' });
  datasetB = await ctx.newDataset(provider, { name: '保存B' });
  await importCsv(datasetA, csvOf(600, 1));
  for (const r of fc.sample(poiArb, { numRuns: 30, seed: 2 })) await register(r);
  await ready();
}, 120_000);

afterAll(async () => {
  try {
    await ctx?.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('search index snapshots', () => {
  it('a built dataset is saved: its file names the dataset, its POI count and a change-log position', async () => {
    // The empty datasets were saved when created; the import (over 500 rows: a bulk change) rebuilds A, which is saved again.
    const metaOf = (id: string) => readSnapshotMeta(dir, id);
    await waitUntil('files written', async () => {
      const [a, b] = [await metaOf(datasetA), await metaOf(datasetB)];
      return !('status' in a) && a.poiCount >= 600 && !('status' in b);
    });
    const meta = await metaOf(datasetA);
    expect(meta).toMatchObject({ format: 1, datasetId: datasetA });
    if ('status' in meta) throw new Error('no header');
    expect(meta.position).toMatch(/^\d+:\d+:/);
  });

  it('a restart loads each dataset from its file and catches up with what was written meanwhile: same answers as PostgreSQL', async () => {
    await restart(() => writeWhileDown(3));
    expect(index().state().builtBy).toEqual({ blocks: 0, keyset: 0, snapshot: 2 });
    await sameAsSql(ctx.app, 31);
  }, 120_000);

  it('writes after the load are followed as after a build, and the next restart loads again', async () => {
    for (const r of fc.sample(poiArb, { numRuns: 5, seed: 4 })) await register(r);
    await restart(() => writeWhileDown(5));
    expect(index().state().builtBy).toEqual({ blocks: 0, keyset: 0, snapshot: 2 });
    await sameAsSql(ctx.app, 32);
  }, 120_000);

  it('a damaged file is not used: the dataset is read from PostgreSQL and saved again', async () => {
    await restart(async () => {
      const bytes = readFileSync(fileOf(datasetA));
      bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
      writeFileSync(fileOf(datasetA), bytes);
      // A file that holds another dataset under this one's name is not used either.
      writeFileSync(fileOf(datasetB), readFileSync(fileOf(datasetA)));
      await writeWhileDown(6);
    });
    expect(index().state().builtBy.snapshot).toBe(0);
    await sameAsSql(ctx.app, 33);
    await waitUntil('saved again', async () => !('status' in (await readSnapshotMeta(dir, datasetA))) && !('status' in (await readSnapshotMeta(dir, datasetB))));
  }, 120_000);

  it('a file older than the change log keeps (pruned past its position) is not used', async () => {
    await restart(async () => {
      // The files' positions taken two hours ago, and the log emptied as pruning would have.
      for (const id of [datasetA, datasetB]) {
        const meta = await readSnapshotMeta(dir, id);
        if ('status' in meta) throw new Error('no header');
        expect(await refreshSnapshotPosition(dir, id, meta.checksum, { position: meta.position, takenAt: meta.takenAt - 2 * 60 * 60 * 1000 })).toBe(true);
      }
      await writeWhileDown(7);
      await ctx.query('DELETE FROM search_changes');
    });
    expect(index().state().builtBy.snapshot).toBe(0);
    await sameAsSql(ctx.app, 34);
  }, 120_000);

  it('a bulk change while down (an import of over 500 rows, logged as one change of the dataset) is not caught up from the file: the dataset is read again', async () => {
    await restart(async () => {
      const other = await buildAppOn(ctx.database, { SEARCH_INDEX_MAX_MB: '0' });
      try {
        await importCsv(datasetB, csvOf(600, 9), other);
      } finally {
        await other.close();
      }
    });
    expect(index().state().builtBy).toMatchObject({ snapshot: 1 });
    await sameAsSql(ctx.app, 35);
  }, 120_000);

  it('the prune job brings each file to the present position: the whole file after writes, the header alone when nothing changed', async () => {
    const metaOf = async (id: string) => {
      const m = await readSnapshotMeta(dir, id);
      if ('status' in m) throw new Error(`no header: ${m.status}`);
      return m;
    };
    await index().prune();
    const [a0, b0] = [await metaOf(datasetA), await metaOf(datasetB)];
    // Two POIs into A, none into B.
    for (const r of fc.sample(poiArb, { numRuns: 2, seed: 12 })) await register({ ...r, inB: false });
    await index().catchUp();
    await index().prune();
    const [a1, b1] = [await metaOf(datasetA), await metaOf(datasetB)];
    // A written whole (a refresh of the header alone keeps the POI count), B's header alone (same buffers).
    expect(a1.poiCount).toBe(a0.poiCount + 2);
    expect(a1.position).not.toBe(a0.position);
    expect(b1.poiCount).toBe(b0.poiCount);
    expect(b1.checksum).toBe(b0.checksum);
    expect(b1.position).toBe(a1.position);
    expect(b1.takenAt).toBeGreaterThanOrEqual(b0.takenAt);
    // And a restart loads both as saved, with the same answers.
    await restart();
    expect(index().state().builtBy).toEqual({ blocks: 0, keyset: 0, snapshot: 2 });
    await sameAsSql(ctx.app, 36);
  }, 120_000);

  it("a deleted dataset's file is removed, while running or while down", async () => {
    const create = async (name: string) => (await consoleApi(ctx.app, 'POST', '/datasets/public/create', provider, { name, price_per_search: 0 })).json().data.dataset_id as string;
    const gone = await create('消える');
    const later = await create('後で消える');
    for (const id of [gone, later]) {
      expect((await consoleApi(ctx.app, 'POST', '/poi/register', provider, { dataset_id: id, name: '消える店', latitude: 35.7, longitude: 139.7 })).statusCode).toBe(200);
      await waitUntil('dataset saved', () => existsSync(fileOf(id)));
    }
    expect((await consoleApi(ctx.app, 'DELETE', `/datasets/${gone}`, provider)).statusCode).toBe(200);
    await waitUntil('file removed', () => !existsSync(fileOf(gone)), 2_000);
    await restart(async () => {
      const other = await buildAppOn(ctx.database, { SEARCH_INDEX_MAX_MB: '0' });
      try {
        expect((await consoleApi(other, 'DELETE', `/datasets/${later}`, provider)).statusCode).toBe(200);
      } finally {
        await other.close();
      }
    });
    await waitUntil('stray file removed', () => !existsSync(fileOf(later)), 2_000);
    expect(existsSync(fileOf(datasetA))).toBe(true);
  }, 60_000);
});
