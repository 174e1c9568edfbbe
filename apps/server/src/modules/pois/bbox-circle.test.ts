import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { greatCircleMeters } from '@poi/shared/geo';
import { bboxCircle } from './pois.repository';

const boxArb = fc
  .tuple(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: 0, max: 179.999, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true }))
  .filter(([minLon, span]) => minLon + span <= 180)
  .map(([minLon, span, a, b]) => [minLon, Math.min(a, b), minLon + span, Math.max(a, b)] as [number, number, number, number]);

describe('bboxCircle: the circle the SQL prefilters a bbox with', () => {
  it('holds every point of the box (poles, wide boxes and thin ones included)', () => {
    fc.assert(
      fc.property(boxArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (box, u, v) => {
        const c = bboxCircle(box)!;
        const lon = box[0] + u * (box[2] - box[0]);
        const lat = box[1] + v * (box[3] - box[1]);
        expect(greatCircleMeters(c.latitude, c.longitude, lat, lon)).toBeLessThanOrEqual(c.radius);
      }),
      { numRuns: 20_000, seed: 33 },
    );
  });

  it('has none for a box 180° wide or more (its farthest points are no longer corners)', () => {
    expect(bboxCircle([-90, 0, 90, 10])).toBeUndefined();
    expect(bboxCircle([-180, -90, 180, 90])).toBeUndefined();
    expect(bboxCircle([139, 35, 140, 36])!.radius).toBeLessThan(80_000);
  });
});
