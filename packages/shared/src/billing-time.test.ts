import { describe, expect, it } from 'vitest';
import { dayOf, daysOfMonth, endOfDay, monthRange, yearMonthOf } from './billing-time';

describe('billing time (Japan time)', () => {
  it('ends a day at midnight Japan time, across a month end', () => {
    expect(endOfDay('2026-10-31').toISOString()).toBe('2026-10-31T15:00:00.000Z');
  });

  it('puts an instant on its Japanese day and month', () => {
    expect(dayOf(new Date('2026-10-31T14:59:59Z'))).toBe('2026-10-31');
    expect(dayOf(new Date('2026-10-31T15:00:00Z'))).toBe('2026-11-01');
    expect(yearMonthOf(new Date('2026-12-31T15:00:00Z'))).toBe('2027-01');
  });

  it('answers the month as a half-open range of instants', () => {
    const { start, end } = monthRange('2026-02');
    expect(start.toISOString()).toBe('2026-01-31T15:00:00.000Z');
    expect(end.toISOString()).toBe('2026-02-28T15:00:00.000Z');
  });

  it('lists every day of a month, leap years included', () => {
    expect(daysOfMonth('2028-02')).toHaveLength(29);
    expect(daysOfMonth('2026-11').at(-1)).toBe('2026-11-30');
  });
});
