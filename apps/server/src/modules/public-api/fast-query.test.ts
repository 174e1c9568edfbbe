import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicPoiSearchQuerySchema } from '@poi/shared/schemas/pois';
import { fastSearchQuery } from './fast-query';

const ID = '0b7c3f7e-2a4d-4c1e-9f00-5d6a7b8c9d0e';

/** Values a client may send for a numeric parameter: mostly plain numbers within `min`..`max` (the fast path), then edges and the ways to get one wrong. */
const numberish = (min: number, max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.double({ min, max, noNaN: true }).map((n) => n.toFixed(6)) },
    { weight: 2, arbitrary: fc.integer({ min: Math.ceil(min), max: Math.floor(max) }).map(String) },
    { weight: 1, arbitrary: fc.double({ min: -200, max: 200_000, noNaN: true }).map((n) => String(n)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('', ' 35.6', '35.6 ', '+35.6', '-0', '35.', '.5', '-.5', '1e3', '0x10', 'NaN', 'Infinity', '90', '90.0000001', '-180', '180.5', '0', '1', '100', '101', '100000', '100001', '0001', '1234567890', '３５'),
    },
  );
const datasetId = fc.oneof(
  { weight: 6, arbitrary: fc.constant<unknown>(ID) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(ID.toUpperCase(), `${ID},${ID}`, [ID, ID], '', ` ${ID}`, 'not-a-uuid', '00000000-0000-0000-0000-000000000000') },
);
const extra = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Record<string, unknown>>({}) },
  { weight: 1, arbitrary: fc.constantFrom<Record<string, unknown>>({ keyword: 'カフェ' }, { cursor: 'abc.def' }, { format: 'geojson' }, { fields: 'id' }, { bbox: '139,35,140,36' }, { tags: 'wifi' }, { latitude: undefined }) },
);

const query = fc
  .record(
    { dataset_id: datasetId, latitude: numberish(-90, 90), longitude: numberish(-180, 180), radius: numberish(1, 50_000), limit: numberish(1, 100), offset: numberish(0, 100_000) },
    { requiredKeys: [] },
  )
  .chain((q) => extra.map((e) => ({ ...q, ...e })));

describe('fastSearchQuery', () => {
  it('answers what the schema answers whenever it answers, and leaves the rest to the schema', () => {
    let fast = 0;
    fc.assert(
      fc.property(query, (q) => {
        const value = fastSearchQuery(q);
        if (value === undefined) return;
        fast += 1;
        const parsed = publicPoiSearchQuerySchema.safeParse(q);
        expect(parsed.success).toBe(true);
        expect(value).toStrictEqual(parsed.data);
      }),
      { numRuns: 5000 },
    );
    // The property says something only if the fast path is taken often enough.
    expect(fast).toBeGreaterThan(50);
  });

  it('reads the common point search', () => {
    const q = { dataset_id: ID, latitude: '35.681236', longitude: '139.767125', radius: '1000', limit: '20' };
    expect(fastSearchQuery(q)).toStrictEqual({ dataset_id: [ID], latitude: 35.681236, longitude: 139.767125, radius: 1000, limit: 20, offset: 0 });
    expect(fastSearchQuery({ dataset_id: ID })).toStrictEqual({ dataset_id: [ID], limit: 20, offset: 0 });
  });

  it('leaves every other query to the schema', () => {
    for (const q of [
      {},
      { dataset_id: [ID, ID] },
      { dataset_id: ID, latitude: '35' },
      { dataset_id: ID, radius: '10' },
      { dataset_id: ID, latitude: '35', longitude: '139', radius: '0' },
      { dataset_id: ID, latitude: '35', longitude: '139', keyword: 'x' },
      { dataset_id: ID, limit: '0' },
      { dataset_id: ID, offset: '-1' },
    ]) {
      expect(fastSearchQuery(q), JSON.stringify(q)).toBeUndefined();
    }
  });
});
