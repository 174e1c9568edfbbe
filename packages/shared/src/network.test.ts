import { describe, expect, it } from 'vitest';
import { isIpOrCidr, isReferrerPattern, referrerMatches } from './network';

describe('IP and CIDR restrictions', () => {
  it.each(['127.0.0.1', '203.0.113.0/24', '10.0.0.0/8', '0.0.0.0/0', '::1', '2001:db8::/32', '2001:db8::1/128'])('accepts %s', (v) => {
    expect(isIpOrCidr(v)).toBe(true);
  });
  it.each(['256.0.0.1', '1.2.3', '1.2.3.4/33', '::1/129', 'example.com', '1.2.3.4/', '1.2.3.4/8/8', '', '01.2.3.4'])('rejects %s', (v) => {
    expect(isIpOrCidr(v)).toBe(false);
  });
});

describe('referrer restrictions', () => {
  it('validates patterns', () => {
    expect(isReferrerPattern('example.com')).toBe(true);
    expect(isReferrerPattern('*.example.co.jp')).toBe(true);
    expect(isReferrerPattern('localhost:3000')).toBe(true);
    expect(isReferrerPattern('https://example.com')).toBe(false);
    expect(isReferrerPattern('exa mple.com')).toBe(false);
    expect(isReferrerPattern('*example.com')).toBe(false);
  });

  it('matches a Referer against a pattern', () => {
    expect(referrerMatches('https://example.com/map', 'example.com')).toBe(true);
    expect(referrerMatches('https://www.example.com/', 'example.com')).toBe(false);
    expect(referrerMatches('https://www.example.com/', '*.example.com')).toBe(true);
    expect(referrerMatches('https://evil-example.com/', '*.example.com')).toBe(false);
    expect(referrerMatches('http://localhost:3000/a', 'localhost:3000')).toBe(true);
    expect(referrerMatches('http://localhost:4000/a', 'localhost:3000')).toBe(false);
    expect(referrerMatches('not a url', 'example.com')).toBe(false);
  });
});
