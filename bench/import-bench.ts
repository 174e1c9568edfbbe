import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Database } from '../apps/server/src/db/client';
import { generatePois, type GeneratedPoi } from './generate';
import { copyIntoPglite, copyIntoPostgres } from './load';

export interface ImportBenchOptions {
  kind: 'postgres' | 'pglite';
  base: string;
  headers: Record<string, string>;
  datasetId: string;
  raw(sqlText: string, params: unknown[]): Promise<unknown>;
  database: Database;
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
async function postOnNewConnection(url: string, headers: Record<string, string>, form: FormData): Promise<{ status: number; text: string }> {
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
  let imported: number | undefined;
  let rssGrowth = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const form = new FormData();
    form.set('dataset_id', o.datasetId);
    form.set('format', 'csv');
    form.set('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    const res = await postOnNewConnection(`${o.base}/console/v1/poi/bulk-import`, o.headers, form);
    const body = JSON.parse(res.text) as { imported_count?: number; error?: { message: string } };
    httpRuns.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text}`);
    imported = body.imported_count;
    rssGrowth = Math.max(rssGrowth, process.memoryUsage().rss - rssBefore);
    await reset();

    // The same rows, with their derived search columns, by COPY into the same indexed table.
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
  }
  const httpMs = median(httpRuns);
  const copyMs = median(copyRuns);

  const limit = o.kind === 'postgres' ? 5_000 : 20_000;
  const ratio = httpMs / copyMs;
  const ok = httpMs <= limit && (o.kind !== 'postgres' || ratio <= 1.5);
  console.log(
    `  import ${(bytes / 1024 / 1024).toFixed(1)} MB CSV, ${imported?.toLocaleString()} rows, median of ${ROUNDS}: ${(httpMs / 1000).toFixed(2)} s over HTTP [${httpRuns.map((ms) => (ms / 1000).toFixed(2)).join(' ')}], raw COPY ${(copyMs / 1000).toFixed(2)} s [${copyRuns.map((ms) => (ms / 1000).toFixed(2)).join(' ')}], ratio ${ratio.toFixed(2)}×, RSS growth ≤${(rssGrowth / 1024 / 1024).toFixed(0)} MB  target ≤${limit / 1000} s${o.kind === 'postgres' ? ' and ≤1.5× COPY' : ''} ${ok ? 'PASS' : 'FAIL'}`,
  );
  return [{ engine: o.kind, pois: ROWS, label: 'bulk import', http: { p50: httpMs, p99: httpMs }, raw: { p50: copyMs, p99: copyMs }, ok }];
}
