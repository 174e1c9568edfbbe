import { describe, expect, it } from 'vitest';
import { consumptionTaxYen, invoiceTotals, lineAmountYen } from './invoice-math';

describe('invoice math', () => {
  it('rounds each line down to the yen and the tax once per invoice', () => {
    expect(lineAmountYen(3, 7)).toBe(0);
    expect(lineAmountYen(15, 7)).toBe(1);
    expect(lineAmountYen(1000, 5)).toBe(50);
    // Two lines of 0.99 yen each: 0 + 0, not ⌊1.98⌋.
    expect(invoiceTotals([{ quantity: 99, unitPriceSen: 1 }, { quantity: 33, unitPriceSen: 3 }])).toEqual({ subtotalYen: 0, taxYen: 0, totalYen: 0 });
    expect(consumptionTaxYen(19)).toBe(1);
    expect(invoiceTotals([{ quantity: 1234, unitPriceSen: 10 }, { quantity: 999, unitPriceSen: 150 }])).toEqual({ subtotalYen: 123 + 1498, taxYen: 162, totalYen: 1783 });
  });

  it('stays exact for large quantities where a floating-point division would not', () => {
    const q = 9_000_000_000_001; // quantity × price close to 2^53
    expect(lineAmountYen(q, 999)).toBe(Number((BigInt(q) * 999n) / 100n));
    expect(consumptionTaxYen(900_719_925_474_099)).toBe(Number((900_719_925_474_099n * 10n) / 100n));
  });
});
