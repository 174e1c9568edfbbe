import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldKeywordWords, foldSearchWord, looseLatin } from './search-fold';
import { VARIANT_PAIRS } from './search-fold.cases';


describe('foldSearchWord', () => {
  it.each(VARIANT_PAIRS)('%s finds %s (%s)', (query, stored, rule) => {
    const storedFolded = foldSearchWord(stored);
    const words = foldKeywordWords(query);
    expect(words.length, rule).toBeGreaterThan(0);
    if (rule.startsWith('none')) {
      expect(words.every((w) => storedFolded.includes(w)), `${rule}: folding alone must not match`).toBe(false);
      return;
    }
    for (const w of words) expect(storedFolded, `${query} → ${w} in ${storedFolded} (${rule})`).toContain(w);
  });

  it('holds at least 60 variant pairs that folding alone matches', () => {
    expect(VARIANT_PAIRS.filter(([, , rule]) => !rule.startsWith('none')).length).toBeGreaterThanOrEqual(60);
  });

  it('keeps what must stay apart', () => {
    // Voiced and unvoiced kana, ン before a dash, a dash between kanji or Latin, ケ not between kanji.
    expect(foldSearchWord('ガス')).not.toBe(foldSearchWord('カス'));
    expect(foldSearchWord('ビル')).not.toBe(foldSearchWord('ビール'));
    expect(foldSearchWord('セブン-イレブン')).toBe('セブンイレブン');
    expect(foldSearchWord('1-2-3')).toBe('123');
    expect(foldSearchWord('ケーキ')).toBe('ケーキ');
    expect(foldSearchWord('東京ガス')).toBe('東京ガス');
    expect(foldSearchWord('')).toBe('');
    expect(foldSearchWord('・ー―')).toBe('ー');
  });

  it('splits a keyword on half- and full-width spaces and drops what folds to nothing', () => {
    expect(foldKeywordWords('渋谷　駅前 ')).toEqual(['渋谷', '駅前']);
    expect(foldKeywordWords(' ・ - ')).toEqual([]);
    expect(foldKeywordWords('カフェ かふぇ')).toEqual(['カフエ']);
  });

  it('is idempotent', () => {
    const japanese = fc.constantFrom(...'あいうえおかがきぎゃゅょっーァィゥェォカガケヶヵ東京霞関髙﨑齋邊・-‐－ 　abcéüoOuUmMbp12３'.split(''));
    fc.assert(
      fc.property(fc.array(japanese, { maxLength: 24 }).map((a) => a.join('')), fc.string({ unit: 'grapheme' }), (a, b) => {
        for (const s of [a, b]) {
          const once = foldSearchWord(s);
          expect(foldSearchWord(once)).toBe(once);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('looseLatin is idempotent and only touches Latin letters', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...'aeioumnbptkshx東'.split('')), { maxLength: 20 }).map((a) => a.join('')), (s) => {
        const once = looseLatin(s);
        expect(looseLatin(once)).toBe(once);
        expect(once.replace(/[a-z]/g, '')).toBe(s.replace(/[a-z]/g, ''));
      }),
    );
  });
});
