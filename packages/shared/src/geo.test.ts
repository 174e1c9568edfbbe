import { describe, expect, it } from 'vitest';
import { EARTH_MEAN_RADIUS_M, greatCircleMeters } from './geo';

describe('greatCircleMeters', () => {
  it('is the mean-radius sphere: a degree of a meridian is R·π/180', () => {
    expect(greatCircleMeters(35, 139, 36, 139)).toBeCloseTo((EARTH_MEAN_RADIUS_M * Math.PI) / 180, 6);
  });

  it('measures Tokyo station to Shinjuku station within a metre of the sphere value', () => {
    // 35.681236,139.767125 → 35.690921,139.700258: 6,134.39 m on this sphere; 6,141.3 m on the
    // 6,378,168 m sphere earthdistance uses by itself.
    expect(greatCircleMeters(35.681236, 139.767125, 35.690921, 139.700258)).toBeCloseTo(6134.393, 2);
    expect(greatCircleMeters(35, 139, 35, 139)).toBe(0);
  });
});
