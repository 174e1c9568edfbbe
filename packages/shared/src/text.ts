/**
 * Search normalisation (docs/search.md "Folding"): NFKC folds half-width kana and
 * full-width Latin (ｶﾌｪ → カフェ, ＡＢＣ → ABC), then lower case. Applied to stored text and to
 * keywords alike, so matching is a plain substring test.
 */
export function normalizeSearchText(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** The distinct 2-character substrings of normalised text (by code point), for the bigram index. */
export function characterBigrams(normalized: string): string[] {
  const chars = Array.from(normalized);
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) {
    const pair = chars[i]! + chars[i + 1]!;
    if (!/\s/u.test(pair)) out.add(pair);
  }
  return [...out];
}
