import { describe, expect, it } from 'vitest';
import { formatUnitPriceMilliYen } from './format';
import { consumptionTaxYen, invoiceTotals, lineAmountYen, taxInclusiveUnitPriceMilliYen, taxInclusiveYen } from './invoice-math';

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

describe('総額表示 (tax-inclusive prices)', () => {
  it('adds the invoice tax to a whole-yen amount', () => {
    expect(taxInclusiveYen(0)).toBe(0);
    expect(taxInclusiveYen(9)).toBe(9);
    expect(taxInclusiveYen(19)).toBe(20);
    expect(taxInclusiveYen(980)).toBe(1078);
    expect(taxInclusiveYen(1621)).toBe(1783);
    expect(() => taxInclusiveYen(1.5)).toThrow(RangeError);
  });

  it('shows a per-search price with tax exactly, in thousandths of a yen', () => {
    expect(taxInclusiveUnitPriceMilliYen(133)).toBe(1463);
    expect(taxInclusiveUnitPriceMilliYen(50)).toBe(550);
    expect(taxInclusiveUnitPriceMilliYen(10)).toBe(110);
    expect(taxInclusiveUnitPriceMilliYen(7)).toBe(77);
    expect(formatUnitPriceMilliYen(taxInclusiveUnitPriceMilliYen(133))).toBe('¥1.463');
    expect(formatUnitPriceMilliYen(taxInclusiveUnitPriceMilliYen(50))).toBe('¥0.55');
    expect(formatUnitPriceMilliYen(taxInclusiveUnitPriceMilliYen(7))).toBe('¥0.077');
    expect(formatUnitPriceMilliYen(taxInclusiveUnitPriceMilliYen(123456))).toBe('¥1,358.016');
    expect(formatUnitPriceMilliYen(0)).toBe('¥0.00');
  });
});
