/**
 * Two layouts of the in-memory index side by side in one process, on a database a bench run kept:
 * the current dataset-index.ts against an older copy of it (a file inside the repository, so that
 * its imports resolve). Each is built from the same block pages; printed: memory per POI of each
 * (V8 heap plus buffers after full collections), build time and the build's work on this thread,
 * then for random searches (radius, nearest, keywords, bbox) whether both give byte-identical pages
 * of answers, and the p50/p99 of a search plus its answer bytes, the two layouts interleaved so that
 * a busy machine weighs on both alike.
 *
 *   git show <commit>:apps/server/src/modules/pois/dataset-index.ts > apps/server/src/modules/pois/old-dataset-index.tmp.ts
 *   BENCH_REUSE_DB=<name> BENCH_OLD_INDEX=apps/server/src/modules/pois/old-dataset-index.tmp.ts \
 *     node --expose-gc --import tsx bench/index-layout-compare.ts
 *
 * BENCH_NEW_FIRST=1 builds the current layout first. BENCH_INDEX_SEARCHES searches per case (default 2,000); BENCH_DATABASE_URL as bench/run.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../apps/server/src/db/client';
import { readBlockPage, poisTableSize, type PageResult } from '../apps/server/src/modules/pois/search-changes.repository';
import * as NEW from '../apps/server/src/modules/pois/dataset-index';
import { foldKeywordTerms } from '../packages/shared/src/search-fold';
import { requiredWords } from '../apps/server/src/modules/pois/pois.repository';
import { prng } from './generate';

const oldPath = process.env.BENCH_OLD_INDEX;
const reuse = process.env.BENCH_REUSE_DB;
if (!oldPath || !reuse) throw new Error('BENCH_OLD_INDEX (an older dataset-index.ts in the repository) and BENCH_REUSE_DB (a kept bench database)');
const OLD = (await import(pathToFileURL(path.resolve(oldPath)).href)) as typeof NEW;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const held = () => {
  for (let k = 0; k < 3; k++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
url.pathname = `/${reuse}`;
const db = await openDatabase({ url: url.toString() });
const pool = (db.db as unknown as { $client: { query: (t: string) => Promise<{ rows: Array<{ id: string; n: number }> }> } }).$client;
const ds = (await pool.query(`SELECT dataset_id AS id, count(*)::int AS n FROM pois GROUP BY 1 ORDER BY 2 DESC LIMIT 1`)).rows[0]!;
const table = (await poisTableSize(db.db))!;
type Index = NEW.DatasetIndex;
type Layout = typeof NEW;

async function buildWith(builder: { add(p: PageResult): void; finish(): Index }) {
  const step = Math.max(8, Math.round((2000 * table.blocks) / ds.n));
  const ranges = Math.ceil(table.blocks / step);
  let busy = 0;
  const t = performance.now();
  let next = 0;
  const worker = async () => { while (next < ranges) { const k = next++; const page = await readBlockPage(db.db, ds.id, k * step, k === ranges - 1 ? undefined : (k + 1) * step); const s = performance.now(); if (page.count) builder.add(page); busy += performance.now() - s; } };
  await Promise.all([worker(), worker()]);
  const s = performance.now();
  const index = builder.finish();
  const fin = performance.now() - s;
  return { index, seconds: (performance.now() - t) / 1000, busy: busy / 1000, finish: fin / 1000 };
}
// BENCH_NEW_FIRST=1 builds the current layout first (the second build's collections also walk the first index's heap).
const newFirst = process.env.BENCH_NEW_FIRST === '1';
const buildOld = () => buildWith(new OLD.DatasetIndexBuilder(ds.id) as unknown as { add(p: PageResult): void; finish(): Index });
const buildNew = () => buildWith(new NEW.DatasetIndexBuilder(ds.id));
const m0 = held();
const first = newFirst ? await buildNew() : await buildOld();
const mid = held();
const second = newFirst ? await buildOld() : await buildNew();
const end = held();
const [old, neu] = newFirst ? [second, first] : [first, second];
const [oldBytes, newBytes] = newFirst ? [end - mid, mid - m0] : [mid - m0, end - mid];
console.log(`old: ${Math.round(oldBytes / ds.n)} B/POI measured, own ${Math.round(old.index.bytes / ds.n)}; build ${old.seconds.toFixed(1)} s (page work ${old.busy.toFixed(1)} s, finish ${old.finish.toFixed(2)} s)`);
console.log(`new: ${Math.round(newBytes / ds.n)} B/POI measured, own ${Math.round(neu.index.bytes / ds.n)}; build ${neu.seconds.toFixed(1)} s (page work ${neu.busy.toFixed(1)} s, finish ${neu.finish.toFixed(2)} s)`);
const rand = prng(11);
const tokyo = () => ({ latitude: 35.68 + (rand() - 0.5) * 0.3, longitude: 139.76 + (rand() - 0.5) * 0.3 });
const words = (k: string) => requiredWords(foldKeywordTerms(k)).map((w) => w.word);
const cases: Array<[string, () => NEW.PointQuery]> = [
  ['radius 1 km', () => ({ ...tokyo(), radius: 1000 })],
  ['radius 10 km', () => ({ ...tokyo(), radius: 10000 })],
  ['nearest', () => tokyo()],
  ['5 km + カフェ', () => ({ ...tokyo(), radius: 5000, words: words('カフェ') })],
  ['稚内', () => ({ ...tokyo(), words: words('稚内') })],
  ['東京 カフェ', () => ({ ...tokyo(), words: words('東京 カフェ') })],
  [
    'bbox 2 km',
    () => {
      const p = tokyo();
      return { ...p, bbox: [p.longitude - 0.01, p.latitude - 0.01, p.longitude + 0.01, p.latitude + 0.01] as const };
    },
  ],
];
const N = Number(process.env.BENCH_INDEX_SEARCHES ?? 2000);
const pct = (a: number[], p: number) => a[Math.min(a.length - 1, Math.floor((p / 100) * a.length))]!;
let diffs = 0;
/** A page of 20 and its total, as the response's bytes. */
function run(layout: Layout, index: Index, q: NEW.PointQuery): Buffer | undefined {
  const found = index.search(layout.prepareQuery(q), 21, 101);
  if (!found) return undefined;
  return layout.answersJson(
    found.matches.slice(0, 20).map((m) => index.answerOf(m)),
    '{"pois":',
    `,"total":${found.counted}}`,
  );
}
for (const [label, make] of cases) {
  const to: number[] = [], tn: number[] = [];
  for (let k = 0; k < N + 50; k++) {
    const q = make();
    let s = performance.now(); const a = run(OLD, old.index, q); const da = performance.now() - s;
    s = performance.now(); const b = run(NEW, neu.index, q); const db_ = performance.now() - s;
    if ((a === undefined) !== (b === undefined) || (a && !a.equals(b!))) { if (diffs++ < 3) console.log('DIFF', label, JSON.stringify(q), a?.toString().slice(0, 300), '\n', b?.toString().slice(0, 300)); }
    if (k >= 50) { to.push(da); tn.push(db_); }
  }
  to.sort((x, y) => x - y); tn.sort((x, y) => x - y);
  console.log(`${label.padEnd(14)} old p50 ${pct(to, 50).toFixed(3)} p99 ${pct(to, 99).toFixed(3)} | new p50 ${pct(tn, 50).toFixed(3)} p99 ${pct(tn, 99).toFixed(3)} ms`);
}
console.log(`answers differing: ${diffs}`);
await db.close();
