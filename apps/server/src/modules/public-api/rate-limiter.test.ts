import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './rate-limiter';

describe('memory rate limiter', () => {
  it('counts per key in fixed one-minute windows', async () => {
    const limiter = createMemoryRateLimiter();
    const start = Date.UTC(2026, 10, 23, 1, 2, 0) + 15_000;
    const a = [];
    for (let i = 0; i < 4; i++) a.push(await limiter.hit('user:a', 3, start));
    expect(a.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(a[3]!.resetSeconds).toBe(45);
    expect((await limiter.hit('user:b', 3, start)).remaining).toBe(2);
    const nextWindow = await limiter.hit('user:a', 3, start + 45_000);
    expect(nextWindow).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });
});
