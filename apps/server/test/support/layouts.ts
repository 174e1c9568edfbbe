/**
 * Layouts of points that once made imports take minutes: the route test and the
 * bench (bench/layout-bench.ts) import them as CSV files of `name,latitude,longitude`.
 */
export type LatLon = [number, number];

export function layoutCsv(rows: number, at: (i: number) => LatLon): string {
  const lines = ['name,latitude,longitude'];
  for (let i = 0; i < rows; i++) {
    const [lat, lon] = at(i);
    lines.push(`Shop ${String(i + 1).padStart(5, '0')},${lat.toFixed(6)},${lon.toFixed(6)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The file: each row 0.000001° further on both axes from Shop 00001 at (35.000001, 139.000001). */
export const diagonal = (i: number): LatLon => [35.000001 + i * 0.000001, 139.000001 + i * 0.000001];
export const meridian = (i: number): LatLon => [35 + i * 0.00001, 139];
export const parallel = (i: number): LatLon => [35, 139 + i * 0.00001];
export const onePoint = (): LatLon => [35.681236, 139.767125];
/** Sapporo and Naha alternately, each a cluster ~100 m across. */
export const twoClusters = (i: number): LatLon =>
  i % 2 ? [43.06 + (i % 37) * 0.00001, 141.35 + (i % 41) * 0.00001] : [26.21 + (i % 43) * 0.00001, 127.68 + (i % 47) * 0.00001];
/** A square grid `side` points wide, 0.001° apart. */
export const grid = (side: number) => (i: number): LatLon => [35 + (i % side) * 0.001, 139 + Math.floor(i / side) * 0.001];
