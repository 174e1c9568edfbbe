import { describe, expect, it } from 'vitest';
import { displayPrefixOf, generateApiKey, hashApiKey, isWellFormedApiKey } from './key-format';

describe('API key format', () => {
  it('generates prefixed keys with a valid checksum, all different', () => {
    const keys = Array.from({ length: 500 }, generateApiKey);
    expect(new Set(keys).size).toBe(500);
    for (const key of keys) {
      expect(key).toMatch(/^poi_live_[0-9A-Za-z]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('rejects any single-character typo and wrong shapes', () => {
    const key = generateApiKey();
    let caught = 0;
    for (let i = 'poi_live_'.length; i < key.length; i++) {
      const c = key[i] === 'a' ? 'b' : 'a';
      const typo = key.slice(0, i) + c + key.slice(i + 1);
      if (!isWellFormedApiKey(typo)) caught++;
    }
    expect(caught).toBe(key.length - 'poi_live_'.length);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(key.replace('poi_live_', 'poi_test_'))).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('stores a hash and a short prefix, never the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(9));
    expect(displayPrefixOf(key)).toBe(key.slice(0, 15));
  });

  it('hashes as the stored keys were hashed: SHA-256 of the key, in hex', () => {
    // Every key row in a database holds this value: a different digest would lock every caller out.
    expect(hashApiKey('poi_live_abc')).toBe('31507d1166df476ee8a4aa8747ba265bc5bbc1a7ff99bc904b2597613180ca61');
  });
});
