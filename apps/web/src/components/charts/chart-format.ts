import { formatNumber, formatYen } from '@poi/shared/format';

export type ChartMetric = 'count' | 'yen';

export interface ChartPoint {
  /** Axis label (a day '11/24' or a month '2026年11月'). */
  label: string;
  value: number;
}

/** One figure as the chart's tooltip and table show it: ¥ with separators, or 件/回 counts. */
export const formatChartValue = (value: number, metric: ChartMetric, unit = '回', yenDecimals = 2) =>
  metric === 'yen' ? formatYen(value, yenDecimals) : `${formatNumber(value)}${unit}`;

/** Axis ticks stay short: 1.2万, 35万, 1.5億. */
export function shortAxisValue(value: number, metric: ChartMetric): string {
  const abs = Math.abs(value);
  const n = abs >= 1e8 ? `${+(value / 1e8).toFixed(1)}億` : abs >= 1e4 ? `${+(value / 1e4).toFixed(1)}万` : formatNumber(value);
  return metric === 'yen' ? `¥${n}` : n;
}
