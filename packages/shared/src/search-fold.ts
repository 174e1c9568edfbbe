/**
 * The POI keyword search's folding (docs/search.md "Folding"): one function applied to the
 * stored search columns and to every query word, so that matching stays a plain substring test.
 * What a provider typed is never changed: only the search columns hold folded text.
 *
 * Rules, in the order applied:
 *  1. NFKC (half-width kana → full width, full-width Latin/digits → ASCII, compatibility
 *     ideographs → their unified form) and lower case.
 *  2. Latin diacritics dropped (é → e, ü → u): the combining marks U+0300–U+036F after NFD.
 *     Kana voicing marks are not in that range and stay (ガ is not カ).
 *  3. Hiragana → katakana (かふぇ = カフェ, ゝゞ → ヽヾ).
 *  4. A dash typed after a katakana (ー ｰ - ‐ ‑ – — ― ─ ━ ~ 〜 －) is the prolonged sound mark ー
 *     (ラ-メン = ラーメン), except after ン and ッ, where it goes; repeated marks count once
 *     (ラーーメン = ラーメン). Any other dash but ー is a symbol (rule 6). Separators are removed
 *     before this rule, so ア ー is アー.
 *  5. Small kana → full size (ァィゥェォッャュョヮヵヶ → アイウエオツヤユヨワカケ): カフエ = カフェ,
 *     キヤノン = キャノン, ビツグ = ビッグ.
 *  6. Everything that is neither a letter nor a digit goes: spaces, ・ - ／ & ' . and the like
 *     (セブン-イレブン = セブンイレブン, 渋谷 駅前店 = 渋谷駅前店). ー, 々 and ヽヾ are letters here.
 *  7. ケ, カ and ガ alone between two kanji are one mark (霞ヶ関 = 霞が関 = 霞ケ関, 三ヵ月 = 三か月).
 *  8. 異体字: the old and variant forms of KANJI_VARIANTS → their common form (髙 → 高, 﨑 → 崎).
 *  9. Latin runs are loosened the way romaji is spelt several ways (looseLatin: toukyou = tokyo,
 *     shimbashi = shinbashi, coffee = cofee = cofe).
 *
 * Not folded: kanji ↔ kana (that is what readings are for: the server stores each name's reading
 * beside it), voiced ↔ unvoiced kana, ヴ ↔ バ, ヰ/ヱ, synonyms and abbreviations, typos.
 */
import { KANJI_VARIANTS } from './kanji-variants';

const COMBINING_LATIN = /[\u0300-\u036f]/gu;
const HIRAGANA = /[\u3041-\u3096\u309d\u309e]/gu;
// After NFKC: ｰ is ー, － is -, 〜 stays, ～ is ~.
const DASH_AFTER_KATAKANA = /([\u30a1-\u30fa\u30fd\u30fe])[ー\-‐‑‒–—―─━~〜]+/gu;
const NO_MARK_BEFORE = new Set(['ン', 'ッ']);
const SMALL_KANA: Record<string, string> = {
  ァ: 'ア', ィ: 'イ', ゥ: 'ウ', ェ: 'エ', ォ: 'オ', ッ: 'ツ', ャ: 'ヤ', ュ: 'ユ', ョ: 'ヨ', ヮ: 'ワ', ヵ: 'カ', ヶ: 'ケ',
};
const SMALL_KANA_RE = /[ァィゥェォッャュョヮヵヶ]/gu;
const DASHES = 'ー\\-‐‑‒–—―─━~〜';
const NOT_LETTER_DIGIT_OR_DASH = new RegExp(`[^\\p{L}\\p{N}${DASHES}]+`, 'gu');
const DASH_NOT_MARK = /[-‐‑‒–—―─━~〜]+/gu;
const KANJI = '[\\p{Script=Han}々]';
const KE_BETWEEN_KANJI = new RegExp(`(?<=${KANJI})[ケカガ](?=${KANJI})`, 'gu');
const VARIANT_RE = new RegExp(`[${Object.keys(KANJI_VARIANTS).join('')}]`, 'gu');

/** NFKC and the 異体字 of rule 8 only: the form a reading is looked up in (髙﨑屋 → 高崎屋). */
export function foldVariants(text: string): string {
  return text.normalize('NFKC').replace(VARIANT_RE, (c) => KANJI_VARIANTS[c]!);
}

/** Long vowels and doubled consonants of Latin runs, spelt one way (idempotent). */
export function looseLatin(text: string): string {
  let out = text;
  for (;;) {
    const next = out
      .replace(/ou|oo/g, 'o')
      .replace(/uu/g, 'u')
      .replace(/aa/g, 'a')
      .replace(/ii/g, 'i')
      .replace(/ee|ei/g, 'e')
      .replace(/([b-df-hj-np-tv-z])\1/g, '$1')
      .replace(/m(?=[bmp])/g, 'n');
    if (next === out) return out;
    out = next;
  }
}

/**
 * Text folded by every rule above, with its separators removed: one run of letters and digits.
 * Applied to each stored field and to each query word.
 */
export function foldSearchWord(text: string): string {
  let s = text.normalize('NFKC').toLowerCase();
  if (/[^ -~]/u.test(s)) {
    s = s.normalize('NFD').replace(COMBINING_LATIN, '').normalize('NFC');
  }
  s = s.replace(HIRAGANA, (c) => String.fromCodePoint(c.codePointAt(0)! + 0x60));
  // Separators go before the dash rule (ア ー is アー) and the other dashes after it.
  s = s.replace(NOT_LETTER_DIGIT_OR_DASH, '');
  s = s.replace(DASH_AFTER_KATAKANA, (_, kana: string) => (NO_MARK_BEFORE.has(kana) ? kana : `${kana}ー`));
  s = s.replace(DASH_NOT_MARK, '');
  s = s.replace(SMALL_KANA_RE, (c) => SMALL_KANA[c]!);
  s = s.replace(KE_BETWEEN_KANJI, 'ケ');
  s = s.replace(VARIANT_RE, (c) => KANJI_VARIANTS[c]!);
  if (/[a-z]/.test(s)) s = s.replace(/[a-z]+/g, looseLatin);
  // Removing a separator can join characters that NFKC composes (Hangul jamo): fold once more then.
  const again = s.normalize('NFKC');
  return again === s ? s : foldSearchWord(again);
}

/** The words of a keyword (split on half- and full-width spaces), folded, distinct, none empty. */
export function foldKeywordWords(keyword: string): string[] {
  return foldKeywordTerms(keyword).map((t) => t.word);
}

/**
 * The folded words of a keyword, each with the form the search columns held before this folding
 * (NFKC and lower case: what rows not yet back-filled hold) when that form differs.
 */
export function foldKeywordTerms(keyword: string): Array<{ word: string; legacy?: string }> {
  const terms = new Map<string, string | undefined>();
  for (const raw of keyword.normalize('NFKC').split(/\s+/u)) {
    const word = foldSearchWord(raw);
    if (!word || terms.has(word)) continue;
    const legacy = raw.toLowerCase();
    terms.set(word, legacy !== word ? legacy : undefined);
  }
  return [...terms].map(([word, legacy]) => (legacy === undefined ? { word } : { word, legacy }));
}
