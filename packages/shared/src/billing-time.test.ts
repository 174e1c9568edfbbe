import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayOf, daysOfMonth, endOfDay, monthRange, yearMonthOf } from './billing-time';

describe('billing time (Japan time)', () => {
  it('answers every instant as the plain formula does, in any order (the last day is remembered)', () => {
    const plain = (t: number) => new Date(t + 9 * 3600_000).toISOString();
    // Instants around Japan's midnights (15:00 UTC) and anywhere, visited in random order.
    const midnight = fc.integer({ min: -20_000, max: 40_000 }).chain((d) => fc.integer({ min: -2, max: 2 }).map((ms) => d * 86_400_000 - 9 * 3600_000 + ms));
    const instant = fc.oneof(midnight, fc.integer({ min: -8.6e15, max: 8.6e15 }), fc.constant(Date.UTC(2026, 10, 30, 14, 59, 59, 999)));
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (ts) => {
        for (const t of ts) {
          expect(dayOf(new Date(t))).toBe(plain(t).slice(0, 10));
          expect(yearMonthOf(new Date(t))).toBe(plain(t).slice(0, 7));
        }
      }),
      { numRuns: 500 },
    );
    expect(() => dayOf(new Date(Number.NaN))).toThrow(RangeError);
  });

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
