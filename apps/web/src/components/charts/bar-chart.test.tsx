import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BarChartWithTable } from './bar-chart';
import { shortAxisValue } from './chart-format';

describe('BarChartWithTable', () => {
  it('lists every figure in its table, formatted as yen or counts', () => {
    render(<BarChartWithTable label="月別の請求額" metric="yen" yenDecimals={0} points={[{ label: '2026年9月', value: 12345 }, { label: '2026年10月', value: 0 }]} />);
    const table = screen.getByRole('table', { name: '月別の請求額' });
    const rows = within(table).getAllByTestId('chart-row');
    expect(rows.map((r) => r.textContent)).toEqual(['2026年9月¥12,345', '2026年10月¥0']);
    expect(screen.getByText('最大 ¥12,345')).toBeTruthy();
  });

  it('usage amounts keep their sen by default', () => {
    render(<BarChartWithTable label="日別の料金" metric="yen" points={[{ label: '11/01', value: 12.5 }]} />);
    expect(screen.getByTestId('chart-row').textContent).toBe('11/01¥12.50');
  });

  it('counts carry their unit, and axis ticks stay short', () => {
    render(<BarChartWithTable label="日別の検索回数" metric="count" points={[{ label: '11/01', value: 1200 }]} />);
    expect(screen.getByTestId('chart-row').textContent).toBe('11/011,200回');
    expect(shortAxisValue(12_000, 'count')).toBe('1.2万');
    expect(shortAxisValue(150_000_000, 'yen')).toBe('¥1.5億');
    expect(shortAxisValue(999, 'yen')).toBe('¥999');
  });
});
