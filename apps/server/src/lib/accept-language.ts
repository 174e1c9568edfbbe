/** The languages the public API answers in; the first is the default. */
export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** An Accept-Language weight (RFC 9110 §12.4.2): 0 to 1 with at most three decimals. */
const QVALUE = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/**
 * The language of an answer from the request's Accept-Language (RFC 9110 §12.5.4): among the
 * languages we speak, the one with the highest weight (`q`, 1 when absent); the header's order
 * breaks ties. A range matches by its primary subtag (`en-US` is English); `*` stands for every
 * language not named. Nothing acceptable, a missing or unreadable header: Japanese.
 * `en-US,en;q=0.9,ja;q=0.5` → en, `ja,en;q=0.8` → ja, `fr` → ja, `ja;q=0, en` → en.
 */
export function preferredLanguage(header: string | undefined): Language {
  if (!header) return LANGUAGES[0];
  const weights = new Map<string, number>();
  let wildcard: number | undefined;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    if (!range) continue;
    let q = 1;
    const qParam = params.find((p) => /^q=/i.test(p));
    if (qParam) {
      const value = qParam.slice(2).trim();
      if (!QVALUE.test(value)) continue;
      q = Number(value);
    }
    const primary = range.toLowerCase().split('-')[0]!;
    if (primary === '*') wildcard ??= q;
    // The first (most specific) mention of a language decides its weight.
    else if (!weights.has(primary)) weights.set(primary, q);
  }
  let best: Language = LANGUAGES[0];
  let bestQ = 0;
  // Ordered by their first mention in the header, so an equal weight keeps the header's order.
  const mentioned = [...weights.keys()];
  const candidates = [...LANGUAGES].sort((a, b) => rank(mentioned, a) - rank(mentioned, b));
  for (const language of candidates) {
    const q = weights.get(language) ?? wildcard ?? 0;
    if (q > bestQ) {
      best = language;
      bestQ = q;
    }
  }
  return best;
}

const rank = (mentioned: string[], language: string): number => {
  const at = mentioned.indexOf(language);
  return at === -1 ? mentioned.length : at;
};
