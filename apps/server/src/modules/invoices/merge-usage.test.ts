import { describe, expect, it } from 'vitest';
import type { MonthUsage } from './close.repository';
import { mergeUsage } from './close.service';

const usage: MonthUsage = {
  datasets: [
    { userId: 'b', datasetId: 'd2', name: 'D2', unitPriceSen: 50, searches: 1 },
    { userId: 'a', datasetId: 'd1', name: 'D1', unitPriceSen: 100, searches: 2 },
    { userId: 'c', datasetId: 'd1', name: 'D1', unitPriceSen: 100, searches: 40 },
    { userId: 'a', datasetId: 'd2', name: 'D2', unitPriceSen: 50, searches: 3 },
    { userId: 'b', datasetId: 'd1', name: 'D1', unitPriceSen: 100, searches: 5 },
    { userId: 'b', datasetId: 'd1', name: 'D1', unitPriceSen: 120, searches: 7 },
  ],
  baseFees: [
    { userId: 'a', unitPriceSen: 10, searches: 4 },
    { userId: 'c', unitPriceSen: 10, searches: 90 },
    { userId: 'b', unitPriceSen: 10, searches: 6 },
    { userId: 'b', unitPriceSen: 12, searches: 1 },
  ],
  accountTypes: new Map(),
};

describe('mergeUsage', () => {
  it("sums only the group's users, per dataset and price and per base fee, in the rows' order", () => {
    expect(mergeUsage(usage, ['a', 'b'])).toEqual({
      datasets: [
        { datasetId: 'd2', name: 'D2', unitPriceSen: 50, searches: 4 },
        { datasetId: 'd1', name: 'D1', unitPriceSen: 100, searches: 7 },
        { datasetId: 'd1', name: 'D1', unitPriceSen: 120, searches: 7 },
      ],
      baseFees: [
        { unitPriceSen: 10, searches: 10 },
        { unitPriceSen: 12, searches: 1 },
      ],
    });
    // The same MonthUsage again (its index by user is built once), one user, and a user without usage.
    expect(mergeUsage(usage, ['c'])).toEqual({ datasets: [{ datasetId: 'd1', name: 'D1', unitPriceSen: 100, searches: 40 }], baseFees: [{ unitPriceSen: 10, searches: 90 }] });
    expect(mergeUsage(usage, ['nobody'])).toEqual({ datasets: [], baseFees: [] });
    // A user named twice counts once.
    expect(mergeUsage(usage, ['c', 'c']).baseFees).toEqual([{ unitPriceSen: 10, searches: 90 }]);
  });
});
