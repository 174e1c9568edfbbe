import { describe, expect, it } from 'vitest';
import { MAX_CARD_ATTEMPTS, nextRetryAt } from './retry-schedule';

describe('card retry schedule', () => {
  it('retries on days 3, 5 and 7 after the issue date at 09:00 JST, then stops', () => {
    expect(nextRetryAt('2026-11-01', 1)?.toISOString()).toBe('2026-11-04T00:00:00.000Z');
    expect(nextRetryAt('2026-11-01', 2)?.toISOString()).toBe('2026-11-06T00:00:00.000Z');
    expect(nextRetryAt('2026-11-01', 3)?.toISOString()).toBe('2026-11-08T00:00:00.000Z');
    expect(nextRetryAt('2026-11-01', 4)).toBeNull();
    expect(MAX_CARD_ATTEMPTS).toBe(4);
  });

  it('crosses month and year ends in Japan time', () => {
    expect(nextRetryAt('2026-12-30', 1)?.toISOString()).toBe('2027-01-02T00:00:00.000Z');
    expect(nextRetryAt('2027-02-27', 1)?.toISOString()).toBe('2027-03-02T00:00:00.000Z');
  });
});
