import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { MonthPicker, monthLabel, selectableMonths } from './month-picker';

describe('MonthPicker', () => {
  it('lists the months up to now, newest first, in Japanese', () => {
    const months = selectableMonths('2026-02');
    expect(months.slice(0, 3)).toEqual(['2026-02', '2026-01', '2025-12']);
    expect(months.at(-1)).toBe('2020-01');
    expect(monthLabel('2026-02')).toBe('2026年2月');
  });

  it('starts at the account’s first month when given (not at the service’s start)', async () => {
    expect(selectableMonths('2026-11', '2026-09')).toEqual(['2026-11', '2026-10', '2026-09']);
    expect(selectableMonths('2026-11', '2026-11')).toEqual(['2026-11']);
    const onChange = vi.fn();
    const now = selectableMonths()[0]!;
    render(<MonthPicker id="m" value={now} onChange={onChange} first={now} />);
    expect(screen.getAllByRole('option')).toHaveLength(1);
    expect(screen.getByRole('button', { name: '前の月' })).toBeDisabled();
  });

  it('moves a month back and forth and stops at the current month', async () => {
    const onChange = vi.fn();
    const now = selectableMonths()[0]!;
    render(<MonthPicker id="m" value={now} onChange={onChange} />);
    expect(screen.getByLabelText('対象月')).toHaveValue(now);
    expect(screen.getByRole('button', { name: '次の月' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: '前の月' }));
    expect(onChange).toHaveBeenCalledWith(selectableMonths()[1]);
  });
});
