import { useId } from 'react';
import { DataTable } from '../ui/data-table';
import { formatChartValue, type ChartMetric, type ChartPoint } from './chart-format';
import SvgBars from './svg-bars';

/**
 * A bar chart with axes and tooltips (plain SVG, svg-bars.tsx: the mouse and the arrow, Home and
 * End keys move the tooltip) and, under it, the same figures as a table for screen readers.
 */
export function BarChartWithTable({
  label,
  points,
  metric,
  unit,
  yenDecimals = 2,
  labelHeader = '期間',
}: {
  label: string;
  points: ChartPoint[];
  metric: ChartMetric;
  unit?: string;
  /** Yen figures: 2 decimals (usage, revenue) or 0 (invoice amounts). */
  yenDecimals?: number;
  labelHeader?: string;
}) {
  const id = useId();
  const max = Math.max(0, ...points.map((p) => p.value));
  return (
    <figure aria-labelledby={`${id}-caption`} className="rounded-lg border border-gray-200 bg-white p-4">
      <figcaption id={`${id}-caption`} className="flex items-baseline justify-between text-sm text-gray-800">
        <span className="font-medium">{label}</span>
        <span className="text-xs text-gray-700">最大 {formatChartValue(max, metric, unit, yenDecimals)}</span>
      </figcaption>
      <div className="mt-2 h-48 w-full">
        <SvgBars points={points} metric={metric} unit={unit} yenDecimals={yenDecimals} name={label} />
      </div>
      <details className="mt-2 text-sm">
        <summary className="min-h-6 cursor-pointer text-blue-700 underline">数値を表で見る</summary>
        <DataTable<ChartPoint>
          caption={label}
          regionLabel={`${label}の表`}
          rows={points}
          rowKey={(p) => p.label}
          rowProps={(p) => ({ 'data-testid': 'chart-row', 'data-value': p.value })}
          className="mt-2 max-h-64 overflow-auto"
          headClassName="text-left text-gray-700"
          bodyClassName=""
          columns={[
            { header: labelHeader, key: 'label', rowHeader: true, headerClassName: 'px-2 py-1 font-medium', className: 'px-2 py-1 text-left font-normal text-gray-900', cell: (p) => p.label },
            {
              header: metric === 'yen' ? '金額' : '件数',
              key: 'value',
              headerClassName: 'px-2 py-1 text-right font-medium',
              className: 'px-2 py-1 text-right tabular-nums text-gray-900',
              cell: (p) => formatChartValue(p.value, metric, unit, yenDecimals),
            },
          ]}
        />
      </details>
    </figure>
  );
}
