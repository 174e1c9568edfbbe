import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { formatChartValue, shortAxisValue, type ChartMetric, type ChartPoint } from './chart-format';

const HEIGHT_FALLBACK = 192;
const WIDTH_FALLBACK = 600;
const MARGIN = { top: 8, right: 8, bottom: 24, left: 56 };
/** Gap between bars, as a share of each bar's band. */
const BAND_GAP = 0.2;
const FONT_SIZE = 11;
/** Minimum space between two x-axis labels. */
const LABEL_GAP = 8;

/**
 * A "nice" scale for counts and yen: 0 up to a round maximum, in steps of 1, 2, 2.5 or 5 × 10^k
 * (whole numbers only), about four of them.
 */
export function yTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1, 2, 3, 4];
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough && Number.isInteger(s)) ?? 10 * power);
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  return ticks;
}

/** Width of a label as drawn at FONT_SIZE: full-width characters take a whole em, the rest about 0.6. */
const labelWidth = (text: string) => [...text].reduce((w, ch) => w + (ch.charCodeAt(0) > 0xff ? FONT_SIZE : FONT_SIZE * 0.6), 0);

/**
 * Which x labels are drawn: every k-th from the first, k as small as keeps LABEL_GAP between them,
 * and always the last (dropping the one before it when they would touch). The first and last
 * labels are drawn from their bar's outer edge inwards (so they stay inside the chart), which can
 * bring them half a label closer to their neighbours: the spacing allows for it.
 */
export function visibleLabels(labels: string[], band: number): Set<number> {
  const n = labels.length;
  if (n === 0) return new Set();
  const widest = Math.max(...labels.map(labelWidth)) * 1.5;
  const every = Math.max(1, Math.ceil((widest + LABEL_GAP) / Math.max(band, 1)));
  const shown = new Set<number>();
  for (let i = 0; i < n; i += every) shown.add(i);
  const last = n - 1;
  if (!shown.has(last)) {
    const previous = last - (last % every);
    if ((last - previous) * band < widest + LABEL_GAP) shown.delete(previous);
    shown.add(last);
  }
  return shown;
}

/**
 * The drawing of a bar chart in plain SVG: axes, grid, bars and a tooltip, for the mouse and the
 * keyboard (focus the chart, then ← → bar by bar, Home and End to the first and last bar). The
 * tooltip's text is also announced to screen readers. Sized to its container.
 */
export default function SvgBars({ points, metric, unit, yenDecimals, name }: { points: ChartPoint[]; metric: ChartMetric; unit?: string; yenDecimals?: number; name: string }) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: WIDTH_FALLBACK, height: HEIGHT_FALLBACK });
  const [active, setActive] = useState<number | null>(null);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const { width, height } = el.getBoundingClientRect();
      if (width > 0 && height > 0) setSize((s) => (s.width === width && s.height === height ? s : { width, height }));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const n = points.length;
  const plotWidth = Math.max(1, size.width - MARGIN.left - MARGIN.right);
  const plotHeight = Math.max(1, size.height - MARGIN.top - MARGIN.bottom);
  const ticks = yTicks(Math.max(0, ...points.map((p) => p.value)));
  const top = ticks[ticks.length - 1]!;
  const band = n ? plotWidth / n : plotWidth;
  const y = (v: number) => MARGIN.top + plotHeight - (Math.max(0, v) / top) * plotHeight;
  const shownLabels = visibleLabels(
    points.map((p) => p.label),
    band,
  );
  const current = active === null || active >= n ? null : active;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!n || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const at = current ?? 0;
    const next = e.key === 'ArrowRight' ? Math.min(n - 1, at + 1) : e.key === 'ArrowLeft' ? Math.max(0, at - 1) : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : null;
    if (next === null) return;
    e.preventDefault();
    setActive(next);
  };
  const onMouseMove = (e: MouseEvent<SVGSVGElement>) => {
    const x = e.clientX - e.currentTarget.getBoundingClientRect().left - MARGIN.left;
    setActive(n && x >= 0 && x < plotWidth ? Math.min(n - 1, Math.floor(x / band)) : null);
  };

  const tip = current === null ? null : points[current]!;
  const tipLeft = current === null ? 0 : MARGIN.left + band * (current + 0.5);
  return (
    <div
      ref={box}
      className="relative h-full w-full rounded outline-offset-2 focus-visible:outline-2 focus-visible:outline-blue-700"
      tabIndex={0}
      role="application"
      aria-roledescription="棒グラフ"
      aria-label={name}
      aria-describedby={`${id}-desc`}
      onKeyDown={onKeyDown}
      onFocus={() => setActive((a) => a ?? (n ? 0 : null))}
      onBlur={() => setActive(null)}
    >
      <p id={`${id}-desc`} className="sr-only">
        {name}の棒グラフ。矢印キーで各期間の値を、Home・Endキーで最初・最後の期間の値を表示します
      </p>
      <svg width={size.width} height={size.height} className="block" aria-hidden="true" onMouseMove={onMouseMove} onMouseLeave={() => setActive(null)}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={MARGIN.left} x2={MARGIN.left + plotWidth} y1={y(t)} y2={y(t)} stroke="#e5e7eb" strokeDasharray={t === 0 ? undefined : '3 3'} />
            <text x={MARGIN.left - 6} y={y(t)} dy="0.35em" textAnchor="end" fontSize={FONT_SIZE} fill="#374151">
              {shortAxisValue(t, metric)}
            </text>
          </g>
        ))}
        {current !== null && <rect x={MARGIN.left + band * current} y={MARGIN.top} width={band} height={plotHeight} fill="#eff6ff" />}
        {points.map((p, i) => {
          const barTop = y(p.value);
          return (
            <rect
              key={p.label}
              data-testid="chart-bar"
              x={MARGIN.left + band * i + (band * BAND_GAP) / 2}
              y={barTop}
              width={Math.max(1, band * (1 - BAND_GAP))}
              height={MARGIN.top + plotHeight - barTop}
              rx={Math.min(2, (band * (1 - BAND_GAP)) / 2)}
              fill="#1d4ed8"
            />
          );
        })}
        {points.map((p, i) =>
          shownLabels.has(i) ? (
            <text
              key={p.label}
              x={MARGIN.left + band * (i + 0.5)}
              y={MARGIN.top + plotHeight + 16}
              textAnchor={i === 0 && n > 1 ? 'start' : i === n - 1 && n > 1 ? 'end' : 'middle'}
              dx={i === 0 && n > 1 ? -band / 2 + 2 : i === n - 1 && n > 1 ? band / 2 - 2 : 0}
              fontSize={FONT_SIZE}
              fill="#374151"
            >
              {p.label}
            </text>
          ) : null,
        )}
      </svg>
      <div
        data-testid="chart-tooltip"
        aria-live="polite"
        className={`pointer-events-none absolute top-1 z-10 rounded border border-gray-200 bg-white px-2 py-1 text-xs whitespace-nowrap text-gray-900 shadow ${tip ? '' : 'sr-only'}`}
        // Over its bar, shifted by as much of its own width as the bar is across the chart: over
        // the first bars it extends to the right, over the last ones to the left, never outside.
        style={tip ? { left: tipLeft, transform: `translateX(-${Math.round((tipLeft / size.width) * 100)}%)` } : undefined}
      >
        {tip && (
          <>
            <span data-testid="chart-tooltip-label" className="block font-medium">
              {tip.label}
            </span>
            <span>
              {name}: {formatChartValue(tip.value, metric, unit, yenDecimals)}
            </span>
          </>
        )}
      </div>
    </div>
  );
}
