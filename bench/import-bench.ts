import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { IMPORT_MAX_BYTES, IMPORT_MAX_EXPANDED_BYTES } from '@poi/shared/limits';
import type { Database } from '../apps/server/src/db/client';
import { CITIES, generatePois, type GeneratedPoi } from './generate';
import { fmt, pct } from './stats';
import { copyChunksIntoPostgres, copyIntoPglite, copyIntoPostgres, lines } from './load';

export interface ImportBenchOptions {
  kind: 'postgres' | 'pglite';
  base: string;
  headers: Record<string, string>;
  datasetId: string;
  raw(sqlText: string, params: unknown[]): Promise<unknown>;
  database: Database;
  /** An API key of a consumer the rate limit cannot stop: the public search probed during the import. */
  apiKey?: string;
}

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 50_000);
/** Import and COPY alternate this many times; the medians are compared. */
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** About 10 MB: the generated POIs with a description long enough to reach the upload limit. */
function buildCsv(pois: GeneratedPoi[]): string {
  const lines = ['name,latitude,longitude,address,category,tags'];
  for (const p of pois) {
    lines.push([p.name, String(p.latitude), String(p.longitude), p.address, p.category, p.tags.join('|')].map(csvCell).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A multipart POST on a connection of its own, as a browser's upload would be. fetch() would
 * reuse a keep-alive connection left idle by the earlier measurements, and the server closing
 * it just as the 9.5 MB upload starts resets the request (seen after the public API load).
 */
export async function postOnNewConnection(url: string, headers: Record<string, string>, form: FormData): Promise<{ status: number; text: string }> {
  const encoded = new Response(form);
  const payload = Buffer.from(await encoded.arrayBuffer());
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-type': encoded.headers.get('content-type')!, 'content-length': payload.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Probes of the server while an import runs: a sample every PROBE_INTERVAL_MS after the last answer. */
const PROBE_INTERVAL_MS = 50;
/** The slowest /healthz and public search during a 9 MB import on PostgreSQL. */
const PROBE_TARGET_MS = 500;
type ProbeTimes = Record<string, { times: number[]; failures: number[] }>;

/**
 * Starts bench/probe-worker.mjs (its own process: a stalled server thread cannot stall the clock)
 * polling /healthz and a public radius search (a different point each time, so no answer comes
 * from the search cache); stop() returns each probe's request times.
 */
function startProbes(base: string, datasetId: string, apiKey: string | undefined): { stop(): Promise<ProbeTimes> } {
  const searches = Array.from({ length: 64 }, (_, i) => {
    const c = CITIES[i % 4]!;
    const d = (i - 32) * 0.0007;
    return `/api/v1/poi/search?dataset_id=${datasetId}&latitude=${(c.lat + d).toFixed(6)}&longitude=${(c.lon - d).toFixed(6)}&radius=1000&limit=20`;
  });
  const probes = [{ name: 'healthz', paths: ['/healthz'] }, ...(apiKey ? [{ name: 'search', paths: searches, headers: { 'x-api-key': apiKey } }] : [])];
  const child = spawn(process.execPath, [fileURLToPath(new URL('./probe-worker.mjs', import.meta.url)), JSON.stringify({ base, intervalMs: PROBE_INTERVAL_MS, probes })], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    async stop() {
      child.stdin!.end('stop\n');
      const code = await exited;
      if (code !== 0) throw new Error(`probe-worker.mjs exited ${code}: ${err}`);
      return JSON.parse(out) as ProbeTimes;
    },
  };
}

/** Bulk import over HTTP into the indexed dataset, against a raw COPY of the same rows into the same table. */
export async function runImportBench(o: ImportBenchOptions) {
  const base = [...generatePois(ROWS, 99)].map((p, i) => ({ ...p, name: `${p.name} 取込${i}` }));
  // Addresses padded so that the file comes just under the 10 MB limit (9.5 MB).
  const pad = Math.max(0, Math.floor((9.5 * 1024 * 1024 - Buffer.byteLength(buildCsv(base))) / ROWS / 3));
  const pois = base.map((p) => ({ ...p, address: `${p.address} ${'番'.repeat(pad)}` }));
  const csv = buildCsv(pois);
  const bytes = Buffer.byteLength(csv);
  // Each round starts from the same table: the rows of the previous one deleted and vacuumed
  // (the VACUUM also waits for the server's ANALYZE after its import, which takes the same lock).
  const reset = async () => {
    await o.raw(`DELETE FROM pois WHERE dataset_id = $1 AND name LIKE '% 取込%'`, [o.datasetId]);
    await o.raw('VACUUM pois', []);
  };
  const httpRuns: number[] = [];
  const copyRuns: number[] = [];
  const bareRuns: number[] = [];
  let imported: number | undefined;
  let rssGrowth = 0;
  const probed: Record<string, { times: number[]; failures: number[] }> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const form = new FormData();
    form.set('dataset_id', o.datasetId);
    form.set('format', 'csv');
    form.set('mode', 'add');
    form.set('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const rssBefore = process.memoryUsage().rss;
    // BENCH_IMPORT_PROBES=0: the import alone, for comparing its time with a build without them.
    const probes = process.env.BENCH_IMPORT_PROBES === '0' ? { stop: async (): Promise<ProbeTimes> => ({}) } : startProbes(o.base, o.datasetId, o.apiKey);
    // The probes' first answers before the upload starts: their connections are open and warm.
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    const res = await postOnNewConnection(`${o.base}/console/v1/poi/bulk-import`, o.headers, form);
    const body = JSON.parse(res.text) as { imported_count?: number; error?: { message: string } };
    httpRuns.push(performance.now() - t0);
    for (const [name, p] of Object.entries(await probes.stop())) {
      probed[name] ??= { times: [], failures: [] };
      probed[name].times.push(...p.times);
      probed[name].failures.push(...p.failures);
    }
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text}`);
    imported = body.imported_count;
    rssGrowth = Math.max(rssGrowth, process.memoryUsage().rss - rssBefore);
    await reset();

    // The same rows by COPY into the same indexed table, their derived search columns (readings
    // included) computed on the way, as the import does (target: import ≤ 1.5× this) ...
    const t1 = performance.now();
    if (o.kind === 'postgres') {
      const pool = (o.database.db as unknown as { $client: pg.Pool }).$client;
      const client = await pool.connect();
      try {
        await copyIntoPostgres(client, o.datasetId, pois);
      } finally {
        client.release();
      }
    } else {
      await copyIntoPglite((o.database.db as unknown as { $client: PGlite }).$client, o.datasetId, pois);
    }
    copyRuns.push(performance.now() - t1);
    await reset();
    // ... and computed beforehand: the bare cost of storing them (target: import ≤ 2× this).
    if (o.kind === 'postgres') {
      const chunks = [...lines(o.datasetId, pois)];
      const pool = (o.database.db as unknown as { $client: pg.Pool }).$client;
      const client = await pool.connect();
      const t2 = performance.now();
      try {
        await copyChunksIntoPostgres(client, chunks);
      } finally {
        client.release();
      }
      bareRuns.push(performance.now() - t2);
      await reset();
    }
  }
  const httpMs = median(httpRuns);
  const copyMs = median(copyRuns);

  const limit = o.kind === 'postgres' ? 5_000 : 20_000;
  const ratio = httpMs / copyMs;
  const bareMs = bareRuns.length ? median(bareRuns) : undefined;
  const bareRatio = bareMs ? httpMs / bareMs : undefined;
  // The server's answers meanwhile: the slowest and p99 of each probe, every round.
  const probeLines = Object.entries(probed).map(([name, p]) => {
    const sorted = [...p.times].sort((a, b) => a - b);
    const max = sorted.at(-1) ?? 0;
    return { name, max, p99: pct(sorted, 99), p50: pct(sorted, 50), n: sorted.length, failures: p.failures };
  });
  const probesOk = probeLines.every((l) => l.failures.length === 0 && (o.kind !== 'postgres' || l.max <= PROBE_TARGET_MS));
  const ok = httpMs <= limit && probesOk && (o.kind !== 'postgres' || (ratio <= 1.5 && bareRatio! <= 2));
  console.log(
    `  import ${(bytes / 1024 / 1024).toFixed(1)} MB CSV, ${imported?.toLocaleString()} rows, median of ${ROUNDS}: ${(httpMs / 1000).toFixed(2)} s over HTTP [${httpRuns.map((ms) => (ms / 1000).toFixed(2)).join(' ')}], raw COPY ${(copyMs / 1000).toFixed(2)} s [${copyRuns.map((ms) => (ms / 1000).toFixed(2)).join(' ')}], ratio ${ratio.toFixed(2)}×${bareMs ? `, bare COPY (search columns and readings computed beforehand) ${(bareMs / 1000).toFixed(2)} s, ratio ${bareRatio!.toFixed(2)}×` : ''}, RSS growth ≤${(rssGrowth / 1024 / 1024).toFixed(0)} MB  target ≤${limit / 1000} s${o.kind === 'postgres' ? ', ≤1.5× COPY and ≤2× bare COPY' : ''} ${ok ? 'PASS' : 'FAIL'}`,
  );
  for (const l of probeLines) {
    console.log(
      `  during the import, ${l.name === 'healthz' ? '/healthz' : 'public search (radius 1 km, SQL path)'} every ${PROBE_INTERVAL_MS} ms: ${l.n} answers, p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, slowest ${fmt(l.max)} ms` +
        `${l.failures.length ? `, ${l.failures.length} not 200 (${[...new Set(l.failures)].join(', ')})` : ''}  target ${o.kind === 'postgres' ? `slowest ≤${PROBE_TARGET_MS} ms ${l.failures.length === 0 && l.max <= PROBE_TARGET_MS ? 'PASS' : 'FAIL'}` : '(reported)'}`,
    );
  }
  return [{ engine: o.kind, pois: ROWS, label: 'bulk import', http: { p50: httpMs, p99: httpMs }, raw: { p50: copyMs, p99: copyMs }, ok }];
}

const ROUND_TRIP_POIS = Number(process.env.BENCH_ROUNDTRIP_POIS ?? 60_000);

/**
 * The export → import round trip: a 60,000-POI dataset exported gzip-compressed over HTTP, then imported
 * back as it was downloaded: into the same dataset in update mode (every row updates its POI,
 * nothing is duplicated) and into an empty dataset in add mode. Targets: the compressed export
 * fits the 10 MB upload limit and its content the 100 MB expanded limit, the counts come out
 * right; the times are reported beside the uncompressed import above.
 */
export async function runRoundTripBench(o: ImportBenchOptions) {
  const owner = ((await o.raw('SELECT created_by FROM datasets WHERE id = $1', [o.datasetId])) as { rows: Array<{ created_by: string }> }).rows[0]!.created_by;
  const createDataset = async (name: string) =>
    ((await o.raw(
      `INSERT INTO datasets (name, price_per_search, is_platform_dataset, created_by, assigned_user_id, provider_user_id) VALUES ($1, 0, false, $2, $2, $2) RETURNING id`,
      [name, owner],
    )) as { rows: Array<{ id: string }> }).rows[0]!.id;
  const source = await createDataset('ベンチ往復 元');
  const target = await createDataset('ベンチ往復 先');
  const pois = [...generatePois(ROUND_TRIP_POIS, 1919)];
  if (o.kind === 'postgres') {
    const client = await (o.database.db as unknown as { $client: pg.Pool }).$client.connect();
    try {
      await copyIntoPostgres(client, source, pois);
    } finally {
      client.release();
    }
  } else {
    await copyIntoPglite((o.database.db as unknown as { $client: PGlite }).$client, source, pois);
  }
  await o.raw('UPDATE datasets SET poi_count = $2 WHERE id = $1', [source, ROUND_TRIP_POIS]);
  const countOf = async (ds: string) => Number(((await o.raw('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1', [ds])) as { rows: Array<{ n: number }> }).rows[0]!.n);
  try {
    const t0 = performance.now();
    // On a connection of its own, for the reason postOnNewConnection gives.
    const { status, body: gz } = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      http
        .get(`${o.base}/console/v1/datasets/${source}/export?format=csv&compress=gzip`, { agent: false, headers: o.headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const exportMs = performance.now() - t0;
    if (status !== 200) throw new Error(`export answered ${status}`);
    const expanded = gunzipSync(gz).length;
    const upload = async (ds: string, mode: 'add' | 'update') => {
      const form = new FormData();
      form.set('dataset_id', ds);
      form.set('format', 'csv');
      form.set('mode', mode);
      form.set('file', new Blob([gz], { type: 'application/gzip' }), 'export.csv.gz');
      const t = performance.now();
      const r = await postOnNewConnection(`${o.base}/console/v1/poi/bulk-import`, o.headers, form);
      const ms = performance.now() - t;
      if (r.status !== 200) throw new Error(`round-trip import (${mode}) answered ${r.status}: ${r.text}`);
      return { ms, body: JSON.parse(r.text) as { added_count: number; updated_count: number } };
    };
    const update = await upload(source, 'update');
    const add = await upload(target, 'add');
    const sizesOk = gz.length <= IMPORT_MAX_BYTES && expanded <= IMPORT_MAX_EXPANDED_BYTES;
    const countsOk =
      update.body.updated_count === ROUND_TRIP_POIS && update.body.added_count === 0 && (await countOf(source)) === ROUND_TRIP_POIS &&
      add.body.added_count === ROUND_TRIP_POIS && (await countOf(target)) === ROUND_TRIP_POIS;
    const ok = sizesOk && countsOk;
    console.log(
      `  round trip ${ROUND_TRIP_POIS.toLocaleString()} POIs: gzip export ${(gz.length / 1024 / 1024).toFixed(1)} MB (${(expanded / 1024 / 1024).toFixed(1)} MB expanded) in ${(exportMs / 1000).toFixed(2)} s; ` +
        `import back in update mode ${(update.ms / 1000).toFixed(2)} s (${update.body.updated_count.toLocaleString()} updated), into an empty dataset ${(add.ms / 1000).toFixed(2)} s  ` +
        `target ≤10 MB sent, ≤100 MB expanded, no duplicates ${ok ? 'PASS' : 'FAIL'}`,
    );
    return [
      { engine: o.kind, pois: ROUND_TRIP_POIS, label: 'round trip: gzip import, update mode', http: { p50: update.ms, p99: update.ms }, raw: { p50: exportMs, p99: exportMs }, ok },
      { engine: o.kind, pois: ROUND_TRIP_POIS, label: 'round trip: gzip import, add mode', http: { p50: add.ms, p99: add.ms }, raw: { p50: exportMs, p99: exportMs }, ok },
    ];
  } finally {
    for (const ds of [source, target]) await o.raw('DELETE FROM datasets WHERE id = $1', [ds]);
  }
}
