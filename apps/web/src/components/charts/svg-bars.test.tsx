import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import SvgBars, { visibleLabels, yTicks } from './svg-bars';

const points = [
  { label: '11/01', value: 10 },
  { label: '11/02', value: 20 },
  { label: '11/03', value: 30 },
  { label: '11/04', value: 40 },
];

const tooltipLabel = () => screen.queryByTestId('chart-tooltip-label')?.textContent ?? null;

describe('the SVG bar chart', () => {
  it('moves its tooltip with ← →, and Home and End jump to the first and last bar', () => {
    render(<SvgBars points={points} metric="count" name="日別の検索回数" />);
    const chart = screen.getByRole('application', { name: '日別の検索回数' });
    expect(tooltipLabel()).toBeNull();
    act(() => chart.focus());
    expect(tooltipLabel()).toBe('11/01');
    expect(screen.getByTestId('chart-tooltip').textContent).toContain('日別の検索回数: 10回');
    fireEvent.keyDown(chart, { key: 'ArrowRight' });
    expect(tooltipLabel()).toBe('11/02');
    const end = fireEvent.keyDown(chart, { key: 'End' });
    expect(end).toBe(false); // handled: the page does not scroll to its end
    expect(tooltipLabel()).toBe('11/04');
    fireEvent.keyDown(chart, { key: 'ArrowRight' }); // stays on the last bar
    expect(tooltipLabel()).toBe('11/04');
    fireEvent.keyDown(chart, { key: 'ArrowLeft' });
    expect(tooltipLabel()).toBe('11/03');
    fireEvent.keyDown(chart, { key: 'Home' });
    expect(tooltipLabel()).toBe('11/01');
    expect(fireEvent.keyDown(chart, { key: 'Home', ctrlKey: true })).toBe(true); // not the chart's
    act(() => chart.blur());
    expect(tooltipLabel()).toBeNull();
  });

  it('draws one bar per point, taller for larger values, and yen in the tooltip', () => {
    render(<SvgBars points={[{ label: '2026年10月', value: 1234.5 }, { label: '2026年11月', value: 0 }]} metric="yen" yenDecimals={2} name="売上" />);
    const bars = screen.getAllByTestId('chart-bar');
    expect(bars).toHaveLength(2);
    expect(Number(bars[0]!.getAttribute('height'))).toBeGreaterThan(Number(bars[1]!.getAttribute('height')));
    expect(Number(bars[1]!.getAttribute('height'))).toBe(0);
    act(() => screen.getByRole('application', { name: '売上' }).focus());
    expect(screen.getByTestId('chart-tooltip').textContent).toContain('売上: ¥1,234.50');
  });
});

describe('the scale and the labels', () => {
  it('steps of 1, 2, 2.5 or 5 × 10^k, whole numbers, reaching the maximum', () => {
    expect(yTicks(0)).toEqual([0, 1, 2, 3, 4]);
    expect(yTicks(3)).toEqual([0, 1, 2, 3]);
    expect(yTicks(10)).toEqual([0, 5, 10]);
    expect(yTicks(1000)).toEqual([0, 250, 500, 750, 1000]);
    expect(yTicks(1001)).toEqual([0, 500, 1000, 1500]);
    for (const max of [1, 7, 99, 12345, 987654321]) {
      const ticks = yTicks(max);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.every(Number.isInteger)).toBe(true);
      expect(ticks.length).toBeLessThanOrEqual(6);
    }
  });

  it('keeps the first and last label and never two closer than the gap', () => {
    const labels = Array.from({ length: 30 }, (_, i) => `11/${String(i + 1).padStart(2, '0')}`);
    const shown = [...visibleLabels(labels, 10)].sort((a, b) => a - b);
    expect(shown[0]).toBe(0);
    expect(shown.at(-1)).toBe(29);
    for (let i = 1; i < shown.length; i++) expect((shown[i]! - shown[i - 1]!) * 10).toBeGreaterThanOrEqual(1.5 * 5 * 11 * 0.6 + 8);
    expect(visibleLabels(labels, 100).size).toBe(30);
  });
});
