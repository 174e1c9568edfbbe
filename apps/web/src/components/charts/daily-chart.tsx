import { BarChartWithTable } from './bar-chart';

export interface DailyPoint {
  date: string;
  value: number;
}

/** Bars per day of a month (svg-bars.tsx), with the figures as a table under it. */
export function DailyChart({ points, metric, label }: { points: DailyPoint[]; metric: 'count' | 'yen'; label: string }) {
  return <BarChartWithTable label={label} metric={metric} labelHeader="日付" points={points.map((p) => ({ label: p.date.slice(5).replace('-', '/'), value: p.value }))} />;
}
