import { describe, expect, it } from 'vitest';
import { characterBigrams, normalizeSearchText } from './text';

describe('normalizeSearchText', () => {
  it('folds width and case the way search needs', () => {
    expect(normalizeSearchText('ｶﾌｪ')).toBe('カフェ');
    expect(normalizeSearchText('ＡＢＣ Cafe')).toBe('abc cafe');
    expect(normalizeSearchText('  東京　タワー ')).toBe('東京 タワー');
  });
});

describe('characterBigrams', () => {
  it('answers distinct code-point pairs without whitespace', () => {
    expect(characterBigrams('東京都')).toEqual(['東京', '京都']);
    expect(characterBigrams('ab ab')).toEqual(['ab']);
    expect(characterBigrams('𠮷野家')).toEqual(['𠮷野', '野家']);
    expect(characterBigrams('a')).toEqual([]);
  });
});
