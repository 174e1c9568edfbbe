import { describe, expect, it } from 'vitest';
import { computeCharges, endOfNextMonth, issueDecision, lineAmountYen, previousYearMonth, taxOf } from './charges';
import { nextCloseTime } from './close-job';

describe('invoice arithmetic', () => {
  it('rounds each line down to the yen in exact integers, even for amounts where a float division would round up', () => {
    expect(lineAmountYen(333, 9)).toBe(29);
    expect(lineAmountYen(1, 99)).toBe(0);
    // 2^53 − 1 sen: x / 100 in binary floating point rounds up to a whole number.
    expect(lineAmountYen(1, Number.MAX_SAFE_INTEGER)).toBe(90_071_992_547_409);
    expect(() => lineAmountYen(2, Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
  });

  it('computes tax once on the subtotal, not per line', () => {
    const c = computeCharges({
      datasets: [
        { datasetId: 'a', name: 'A', unitPriceSen: 1900, searches: 1 },
        { datasetId: 'b', name: 'B', unitPriceSen: 1900, searches: 1 },
      ],
      baseFees: [],
      monthlyFeeSen: 0,
    });
    expect(c.subtotalYen).toBe(38);
    expect(c.taxYen).toBe(3); // per line: ⌊1.9⌋ + ⌊1.9⌋ = 2
    expect(c.totalYen).toBe(41);
    expect(taxOf(9)).toBe(0);
    expect(taxOf(1234567)).toBe(123456);
  });

  it('orders lines datasets, base fee, monthly fee, carried amounts, and drops empty ones', () => {
    const c = computeCharges({
      datasets: [
        { datasetId: 'x', name: 'い', unitPriceSen: 5, searches: 10 },
        { datasetId: 'y', name: 'あ', unitPriceSen: 0, searches: 10 },
      ],
      baseFees: [{ unitPriceSen: 10, searches: 0 }],
      monthlyFeeSen: 98000,
      carried: [{ yearMonth: '2026-09', subtotalYen: 20 }],
    });
    expect(c.lines.map((l) => [l.kind, l.amountYen])).toEqual([
      ['dataset', 0],
      ['monthly_fee', 980],
      ['carry_over', 20],
    ]);
  });

  it('issues, carries or drops a total by payment method', () => {
    expect(issueDecision(0, 'card')).toBe('none');
    expect(issueDecision(49, 'card')).toBe('carry');
    expect(issueDecision(50, 'card')).toBe('issue');
    expect(issueDecision(1, 'bank_transfer')).toBe('issue');
  });

  it('knows month ends and the close time (00:05 JST on the 1st)', () => {
    expect(endOfNextMonth('2026-12')).toBe('2027-01-31');
    expect(endOfNextMonth('2027-01')).toBe('2027-02-28');
    expect(previousYearMonth('2027-01')).toBe('2026-12');
    expect(nextCloseTime(new Date('2026-11-23T22:00:00Z')).toISOString()).toBe('2026-11-30T15:05:00.000Z');
  });
});
