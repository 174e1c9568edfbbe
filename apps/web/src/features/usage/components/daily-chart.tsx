import { formatNumber, formatYen } from '@poi/shared/format';

export interface DailyPoint {
  date: string;
  value: number;
}

/**
 * Bars per day of a month, drawn as SVG (no chart library): the value of each bar is in its
 * title (hover) and in the table below it for screen readers.
 */
export function DailyChart({ points, metric, label }: { points: DailyPoint[]; metric: 'count' | 'yen'; label: string }) {
  const max = Math.max(...points.map((p) => p.value), 0);
  const width = 100 / Math.max(points.length, 1);
  const format = (v: number) => (metric === 'yen' ? formatYen(v) : `${formatNumber(v)}回`);
  return (
    <figure aria-label={label} className="rounded-lg border border-gray-200 bg-white p-4">
      <div className="flex items-baseline justify-between text-xs text-gray-700">
        <span>{label}</span>
        <span>最大 {format(max)}</span>
      </div>
      <svg viewBox="0 0 100 40" preserveAspectRatio="none" className="mt-2 h-40 w-full" role="img" aria-hidden="true">
        <line x1="0" y1="40" x2="100" y2="40" stroke="#9ca3af" strokeWidth="0.3" />
        {points.map((p, i) => {
          const h = max > 0 ? (p.value / max) * 38 : 0;
          return (
            <rect key={p.date} x={i * width + width * 0.15} y={40 - h} width={width * 0.7} height={h} className="fill-blue-600" data-testid="chart-bar" data-value={p.value}>
              <title>{`${p.date}: ${format(p.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="mt-1 flex justify-between text-xs text-gray-700">
        <span>{points[0]?.date.slice(5).replace('-', '/')}</span>
        <span>{points.at(-1)?.date.slice(5).replace('-', '/')}</span>
      </div>
    </figure>
  );
}
