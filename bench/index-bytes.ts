/**
 * The in-memory search index alone, in a process of its own, on a database a bench run kept
 * (BENCH_KEEP=1, then BENCH_REUSE_DB=<name>): its memory per POI measured (V8's heap plus
 * buffers and typed arrays outside it, after a full collection, before and after the build) beside
 * its own estimate, its build time, and the latency of searches straight on it (no HTTP: what the
 * index's layout costs a search, less noisy than a request's figure).
 *
 *   BENCH_REUSE_DB=<name> node --expose-gc --import tsx bench/index-bytes.ts
 *
 * BENCH_DATABASE_URL as bench/run.ts (default the local server); BENCH_INDEX_SEARCHES searches per
 * case (default 3,000); BENCH_INDEX_ROUNDS rounds of them (default 2, the best round's figures).
 */
import { performance } from 'node:perf_hooks';
import { setStaleSearchRows } from '../apps/server/src/modules/pois/search-columns';
import { openDatabase } from '../apps/server/src/db/client';
import { createSearchIndex } from '../apps/server/src/modules/pois/search-index';
import { answersJson } from '../apps/server/src/modules/pois/dataset-index';
import type { PoiSearchFilter } from '../apps/server/src/modules/pois/pois.repository';
import { fmt, pct } from './stats';
import { prng } from './generate';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SEARCHES = Number(process.env.BENCH_INDEX_SEARCHES ?? 3_000);
const ROUNDS = Number(process.env.BENCH_INDEX_ROUNDS ?? 2);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

/** Heap used plus memory outside the heap (buffers, typed arrays), after full collections. */
function heldBytes(): { heap: number; external: number } {
  for (let k = 0; k < 3; k++) gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
}

async function main() {
  const name = process.env.BENCH_REUSE_DB;
  if (!name) throw new Error('BENCH_REUSE_DB: the name of a database a bench run kept');
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  const log = { info: () => undefined, warn: (o: unknown, m: string) => console.log(m, o) };
  try {
    const pool = (database.db as unknown as { $client: { query: (t: string) => Promise<{ rows: Array<{ id: string; n: number }> }> } }).$client;
    const dataset = (await pool.query(`SELECT dataset_id AS id, count(*)::int AS n FROM pois GROUP BY dataset_id ORDER BY 2 DESC LIMIT 1`)).rows[0]!;
    // The back-fill has nothing left on a bench database: keyword searches may come from memory.
    setStaleSearchRows(false);
    const before = heldBytes();
    const index = createSearchIndex({ db: database.db, maxMb: 1_000_000, log: log as never });
    const t = performance.now();
    index.start();
    while (!index.isReady(dataset.id)) {
      if (performance.now() - t > 600_000) throw new Error('not ready within 600 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t) / 1000;
    const after = heldBytes();
    const state = index.state();
    const n = state.pois;
    const heap = after.heap - before.heap;
    const external = after.external - before.external;
    console.log(
      `index of ${n.toLocaleString()} POIs ready in ${seconds.toFixed(1)} s; measured ${Math.round((heap + external) / n)} bytes per POI ` +
        `(V8 heap +${(heap / 1048576).toFixed(0)} MB, buffers and typed arrays +${(external / 1048576).toFixed(0)} MB); its own estimate ${Math.round(state.memoryBytes / n)} bytes per POI (${state.memoryMb} MB)`,
    );

    const rand = prng(11);
    const tokyo = () => ({ latitude: 35.68 + (rand() - 0.5) * 0.3, longitude: 139.76 + (rand() - 0.5) * 0.3 });
    const cases: Array<{ label: string; filter: () => PoiSearchFilter }> = [
      { label: 'radius 1 km', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, point: { ...tokyo(), radius: 1_000 } }) },
      { label: 'radius 10 km', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, point: { ...tokyo(), radius: 10_000 } }) },
      { label: 'nearest, no radius', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, point: tokyo() }) },
      { label: 'radius 5 km + カフェ', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, keyword: 'カフェ', point: { ...tokyo(), radius: 5_000 } }) },
      { label: 'rare keyword 稚内', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, keyword: '稚内', point: tokyo() }) },
      { label: '2 words 東京 カフェ', filter: () => ({ datasetIds: [dataset.id], limit: 20, offset: 0, keyword: '東京 カフェ', point: tokyo() }) },
    ];
    console.log(`${SEARCHES.toLocaleString()} searches per case straight on the index (page of 20 and its answer bytes), best of ${ROUNDS} rounds`);
    for (const c of cases) {
      let best: { p50: number; p99: number; bytes: number } | undefined;
      for (let round = 0; round < ROUNDS; round++) {
        const times: number[] = [];
        let bytes = 0;
        for (let k = 0; k < SEARCHES + 100; k++) {
          const f = c.filter();
          const s = performance.now();
          const found = index.search(f);
          if (!found) throw new Error(`${c.label}: not answered from memory`);
          bytes += answersJson(found.answers, '{"pois":', '}').length;
          if (k >= 100) times.push(performance.now() - s);
        }
        times.sort((a, b) => a - b);
        const r = { p50: pct(times, 50), p99: pct(times, 99), bytes: bytes / (SEARCHES + 100) };
        if (!best || r.p50 < best.p50) best = r;
      }
      console.log(`  ${c.label.padEnd(22)} p50 ${fmt(best!.p50)} ms  p99 ${fmt(best!.p99)} ms  (${Math.round(best!.bytes)} bytes an answer)`);
    }
    await index.stop();
  } finally {
    await database.close();
  }
}

await main();
