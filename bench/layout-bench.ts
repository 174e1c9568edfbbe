import { performance } from 'node:perf_hooks';
import { diagonal, grid, layoutCsv, meridian, onePoint, parallel, twoClusters, type LatLon } from '../apps/server/test/support/layouts';
import { prng } from './generate';
import { postOnNewConnection } from './import-bench';
import type { BenchResult } from './stats';

/**
 * Imports whose cost does not depend on how the points lie. Each layout is imported
 * over HTTP into a dataset of its own (beside the bench's loaded table, so into the same GiST
 * index), and its time per row compared with random points of the same count. Before migration
 * 0018, 3,000 points on one line took 45 s on PostgreSQL and froze PGlite.
 */
export interface LayoutBenchOptions {
  kind: 'postgres' | 'pglite';
  base: string;
  headers: Record<string, string>;
  raw(sqlText: string, params: unknown[]): Promise<unknown>;
  datasetId: string;
}

/** The layouts: rows, and the i-th point (latitude, longitude). A seeded random keeps runs comparable. */
export function layouts(random = prng(30)): Array<{ name: string; rows: number; at: (i: number) => LatLon }> {
  return [
    { name: 'random', rows: 3_000, at: () => [30 + random() * 10, 130 + random() * 10] },
    { name: 'one line (diagonal, +0.000001° each)', rows: 3_000, at: diagonal },
    { name: 'one meridian', rows: 3_000, at: meridian },
    { name: 'one parallel', rows: 3_000, at: parallel },
    { name: 'random', rows: 10_000, at: () => [30 + random() * 10, 130 + random() * 10] },
    { name: 'one point 10,000 times', rows: 10_000, at: onePoint },
    { name: 'two far clusters', rows: 10_000, at: twoClusters },
    { name: 'regular grid (100 × 100, 0.001°)', rows: 10_000, at: grid(100) },
    { name: 'random', rows: 100_000, at: () => [30 + random() * 10, 130 + random() * 10] },
  ];
}

export async function runLayoutBench(o: LayoutBenchOptions): Promise<BenchResult[]> {
  const owner = ((await o.raw('SELECT created_by FROM datasets WHERE id = $1', [o.datasetId])) as { rows: Array<{ created_by: string }> }).rows[0]!.created_by;
  const results: BenchResult[] = [];
  const randomMsPerRow = new Map<number, number>();
  console.log(`  imports by layout of the points (each into a new dataset beside the ${o.kind} table; target: each ≤ 2× random's time per row, 3,000 on one line ≤ 5 s):`);
  for (const layout of layouts()) {
    const dataset = ((await o.raw(
      `INSERT INTO datasets (name, price_per_search, is_platform_dataset, created_by, assigned_user_id, provider_user_id) VALUES ($1, 0, false, $2, $2, $2) RETURNING id`,
      [`ベンチ配置 ${layout.name}`, owner],
    )) as { rows: Array<{ id: string }> }).rows[0]!.id;
    try {
      const form = new FormData();
      form.set('dataset_id', dataset);
      form.set('format', 'csv');
      form.set('mode', 'add');
      form.set('file', new Blob([layoutCsv(layout.rows, layout.at)], { type: 'text/csv' }), 'layout.csv');
      const t0 = performance.now();
      const res = await postOnNewConnection(`${o.base}/console/v1/poi/bulk-import`, o.headers, form);
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`layout ${layout.name}: import answered ${res.status}: ${res.text}`);
      const perRow = ms / layout.rows;
      if (layout.name === 'random') randomMsPerRow.set(layout.rows, perRow);
      const base = randomMsPerRow.get(layout.rows);
      const ratio = base ? perRow / base : 1;
      const ok = ratio <= 2 && (layout.rows !== 3_000 || ms <= 5_000);
      console.log(
        `    ${layout.name.padEnd(38)} ${String(layout.rows).padStart(7)} rows  ${(ms / 1000).toFixed(2).padStart(6)} s  ${(perRow * 1000).toFixed(0).padStart(5)} µs/row  ${layout.name === 'random' ? '(baseline)' : `${ratio.toFixed(2)}× random`}  ${ok ? 'PASS' : 'FAIL'}`,
      );
      results.push({ engine: o.kind, pois: layout.rows, label: `import layout: ${layout.name}`, http: { p50: ms, p99: ms }, raw: { p50: base ? base * layout.rows : ms, p99: base ? base * layout.rows : ms }, ok });
    } finally {
      await o.raw('DELETE FROM pois WHERE dataset_id = $1', [dataset]);
      await o.raw('DELETE FROM datasets WHERE id = $1', [dataset]);
    }
  }
  return results;
}
