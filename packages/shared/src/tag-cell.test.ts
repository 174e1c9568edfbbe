import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTagCell, parseTagCell } from './tag-cell';

describe('tag cell', () => {
  it('separates on | and keeps commas, 、 and escaped separators inside a tag', () => {
    expect(parseTagCell('Wi-Fi|禁煙')).toEqual(['Wi-Fi', '禁煙']);
    expect(parseTagCell('a,b|電源、個室')).toEqual(['a,b', '電源、個室']);
    expect(parseTagCell('x\\|y|z\\\\')).toEqual(['x|y', 'z\\']);
    expect(parseTagCell('C:\\data|x')).toEqual(['C:\\data', 'x']);
    expect(formatTagCell(['a|b', 'c\\d', 'e,f'])).toBe('a\\|b|c\\\\d|e,f');
  });

  it('reads back every list it writes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '|', '\\', ',', '、', ' ', '😀'), minLength: 1 }), { minLength: 1 }), (tags) => {
        expect(parseTagCell(formatTagCell(tags))).toEqual(tags);
      }),
      { numRuns: 500 },
    );
  });
});
