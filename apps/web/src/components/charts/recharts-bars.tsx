import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatChartValue, shortAxisValue, type ChartMetric, type ChartPoint } from './chart-format';

/** The drawing of a bar chart (recharts): loaded on its own, only by screens that show a chart. */
export default function RechartsBars({ points, metric, unit, yenDecimals, name }: { points: ChartPoint[]; metric: ChartMetric; unit?: string; yenDecimals?: number; name: string }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer title={name} desc={`${name}の棒グラフ。矢印キーで各期間の値を表示します`}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e5e7eb" />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: '#374151' }} interval="preserveStartEnd" minTickGap={8} />
        <YAxis tick={{ fontSize: 11, fill: '#374151' }} width={56} tickFormatter={(v: number) => shortAxisValue(v, metric)} allowDecimals={false} />
        <Tooltip formatter={(v) => [formatChartValue(Number(v), metric, unit, yenDecimals), name]} cursor={{ fill: '#eff6ff' }} />
        <Bar dataKey="value" name={name} fill="#1d4ed8" radius={[2, 2, 0, 0]} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
