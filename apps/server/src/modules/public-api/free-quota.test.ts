import { describe, expect, it } from 'vitest';
import { createFreeQuota } from './free-quota';

describe('free quota', () => {
  it('starts from the stored count, loads it once, and never lets concurrent trial searches overshoot', async () => {
    let loads = 0;
    const quota = createFreeQuota(async () => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 5));
      return 8;
    });
    const reserved = await Promise.all(Array.from({ length: 5 }, () => quota.reserve('u', '2026-11', 10)));
    expect(reserved.filter(Boolean)).toHaveLength(2);
    expect(loads).toBe(1);
    // One running search fails: its slot comes back.
    expect(quota.settle('u', '2026-11', false, 10)).toBe(false);
    expect(await quota.reserve('u', '2026-11', 10)).toBe(true);
    expect(quota.settle('u', '2026-11', true, 10)).toBe(true);
    expect(quota.settle('u', '2026-11', true, 10)).toBe(true);
    expect(await quota.reserve('u', '2026-11', 10)).toBe(false);
  });

  it('marks only the first searches of a month free when there is no hard limit', async () => {
    const quota = createFreeQuota(async () => 0);
    const free = [];
    for (let i = 0; i < 4; i++) {
      expect(await quota.reserve('u', '2026-12')).toBe(true);
      free.push(quota.settle('u', '2026-12', true, 2));
    }
    expect(free).toEqual([true, true, false, false]);
    // A new month starts again.
    await quota.reserve('u', '2027-01');
    expect(quota.settle('u', '2027-01', true, 2)).toBe(true);
  });
});
