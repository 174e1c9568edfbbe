import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact-url';

describe('redactUrl', () => {
  it('hides magic-link tokens in the API and console paths', () => {
    expect(redactUrl('/console/v1/auth/magic/abc123def')).toBe('/console/v1/auth/magic/[REDACTED]');
    expect(redactUrl('/auth/magic/abc123def?redirect=%2Fusage')).toBe('/auth/magic/[REDACTED]?redirect=%2Fusage');
  });

  it('hides codes and tokens in the query string and leaves other URLs alone', () => {
    expect(redactUrl('/auth/verify-otp?email=a%40b.jp&code=123456')).toBe('/auth/verify-otp?email=a%40b.jp&code=[REDACTED]');
    expect(redactUrl('/x?token=t&keyword=code=1')).toBe('/x?token=[REDACTED]&keyword=code=1');
    expect(redactUrl('/console/v1/datasets/public?limit=20')).toBe('/console/v1/datasets/public?limit=20');
  });
});
