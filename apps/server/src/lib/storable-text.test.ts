import { describe, expect, it } from 'vitest';
import { findUnstorableText, isStorableText } from './storable-text';

describe('storable text', () => {
  it('accepts Japanese, emoji (paired surrogates) and control characters other than NUL', () => {
    expect(isStorableText('東京タワー 🗼 \t\n')).toBe(true);
    expect(isStorableText('')).toBe(true);
  });

  it('refuses NUL and unpaired surrogates', () => {
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud800')).toBe(false);
    expect(isStorableText('x\udfffy')).toBe(false);
    expect(isStorableText('🗼'.slice(0, 1))).toBe(false);
  });

  it('finds the path of the first bad string, keys included', () => {
    expect(findUnstorableText({ body: { a: ['ok', { b: 'bad\ud800' }] } })).toBe('body.a.1.b');
    expect(findUnstorableText({ querystring: { ['k\u0000']: 'v' } })).toBe('querystring.k\u0000');
    expect(findUnstorableText({ body: { n: 1, t: true, z: null, s: '🗼' } })).toBeUndefined();
    expect(findUnstorableText(undefined)).toBeUndefined();
  });
});

describe('storable text in deep input', () => {
  it('walks 100,000 levels without recursion and names the path', () => {
    let deep: unknown = 'ok';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { a: deep };
    expect(findUnstorableText(deep)).toBeUndefined();
    let bad: unknown = '\ud800';
    for (let i = 0; i < 3; i++) bad = [bad];
    expect(findUnstorableText({ x: 1, y: bad }, 'body')).toBe('body.y.0.0.0');
  });
});
