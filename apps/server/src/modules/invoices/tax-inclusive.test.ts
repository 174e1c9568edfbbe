import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taxInclusiveYen } from '@poi/shared/invoice-math';
import { computeCharges } from './charges';

/*
 * 総額表示 (docs/billing.md): the tax-inclusive amount the console shows for a subtotal is exactly
 * what the monthly close's invoice math totals for lines with that subtotal.
 */
describe('taxInclusiveYen against the invoice math', () => {
  it('equals the total of an invoice for any set of lines', () => {
    const dataset = fc.record({ unitPriceSen: fc.integer({ min: 0, max: 1_000_000 }), searches: fc.integer({ min: 0, max: 5_000_000 }) });
    fc.assert(
      fc.property(
        fc.array(dataset, { maxLength: 12 }),
        fc.array(fc.record({ unitPriceSen: fc.integer({ min: 0, max: 1000 }), searches: fc.integer({ min: 0, max: 10_000_000 }) }), { maxLength: 3 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (datasets, baseFees, monthlyFeeSen) => {
          const charges = computeCharges({
            datasets: datasets.map((d, i) => ({ datasetId: `d${i}`, name: `データ${i}`, ...d })),
            baseFees,
            monthlyFeeSen,
          });
          expect(taxInclusiveYen(charges.subtotalYen)).toBe(charges.totalYen);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matches a worked example', () => {
    const charges = computeCharges({ datasets: [{ datasetId: 'a', name: 'A', unitPriceSen: 133, searches: 1500 }], baseFees: [{ unitPriceSen: 10, searches: 500 }], monthlyFeeSen: 98000 });
    // 1,995 + 50 + 980 = 3,025; tax ⌊302.5⌋ = 302.
    expect(charges.subtotalYen).toBe(3025);
    expect(taxInclusiveYen(3025)).toBe(3327);
    expect(charges.totalYen).toBe(3327);
  });
});
