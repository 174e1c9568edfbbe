import type { KeyboardEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatChartValue, shortAxisValue, type ChartMetric, type ChartPoint } from './chart-format';

/**
 * Home and End for the chart's keyboard layer: recharts moves its tooltip with ← → only (one bar
 * at a time, stopping at either end), so Home is ← and End is → pressed once per bar, on the
 * element recharts listens on. Answers whether the key was handled.
 */
export function chartHomeEnd(e: KeyboardEvent<HTMLElement>, count: number): boolean {
  if (e.key !== 'Home' && e.key !== 'End') return false;
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return false;
  e.preventDefault();
  const key = e.key === 'Home' ? 'ArrowLeft' : 'ArrowRight';
  const target = e.target as HTMLElement;
  for (let i = 0; i < count; i++) target.dispatchEvent(new window.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  return true;
}

/** The drawing of a bar chart (recharts): loaded on its own, only by screens that show a chart. */
export default function RechartsBars({
  points,
  metric,
  unit,
  yenDecimals,
  name,
  initialDimension,
}: {
  points: ChartPoint[];
  metric: ChartMetric;
  unit?: string;
  yenDecimals?: number;
  name: string;
  /** The size drawn before the container is measured (tests, where nothing has a size). */
  initialDimension?: { width: number; height: number };
}) {
  return (
    // The keyboard layer: ← → (recharts), Home and End (first and last bar); the focusable
    // element is recharts' own, inside.
    <div className="h-full w-full" onKeyDown={(e) => chartHomeEnd(e, points.length)}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={initialDimension}>
        <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer title={name} desc={`${name}の棒グラフ。矢印キーで各期間の値を、Home・Endキーで最初・最後の期間の値を表示します`}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e5e7eb" />
          <XAxis dataKey="label" tick={{ fontSize: 11, fill: '#374151' }} interval="preserveStartEnd" minTickGap={8} />
          <YAxis tick={{ fontSize: 11, fill: '#374151' }} width={56} tickFormatter={(v: number) => shortAxisValue(v, metric)} allowDecimals={false} />
          <Tooltip formatter={(v) => [formatChartValue(Number(v), metric, unit, yenDecimals), name]} cursor={{ fill: '#eff6ff' }} />
          <Bar dataKey="value" name={name} fill="#1d4ed8" radius={[2, 2, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
