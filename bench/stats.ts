/** One measured figure of the bench and whether it met its target (shared by every section). */
export interface BenchResult {
  engine: string;
  pois: number;
  label: string;
  http: { p50: number; p99: number };
  raw: { p50: number; p99: number };
  ok: boolean;
}

/** The p-th percentile of ascending samples. */
export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
export const fmt = (ms: number) => ms.toFixed(2).padStart(7);
