/**
 * Readings of POI names: kana and romaji queries find kanji names (東京タワー from
 * とうきょうたわー, トウキョウタワー or "tokyo tower"). The reading comes from kuromoji (IPADIC, the
 * dictionary shipped in its npm package), romaji from wanakana (Hepburn), and the English of common
 * katakana loanwords from LOANWORDS, so that "tower" finds タワー.
 *
 * Limits: one reading per name (kuromoji's best path; a name read two ways keeps one), words
 * IPADIC does not know keep their surface form (no reading), and only the name gets a reading.
 * wanakana 5.3.1 romanises some extended katakana off Hepburn (ティ → tei, ファ → fua, カフェ →
 * kafye, ウィ → ui); romajiKey keeps that output as it is (stored rows hold it).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import kuromoji from 'kuromoji';
import { toKatakana, toRomaji } from 'wanakana';
import { foldVariants, looseLatin as looseLatinRuns } from '@poi/shared/search-fold';

export interface Readings {
  /**
   * The katakana reading of the text, its space-separated parts read one by one (and joined by a
   * space); what has no reading (Latin, digits, unknown words) as written.
   */
  readingOf(text: string): string;
}

type Tokenizer = kuromoji.Tokenizer<kuromoji.IpadicFeatures>;

const HIRAGANA_ONLY = /^[\u3041-\u309f]+$/u;
const HIRAGANA_CHAR = /[\u3041-\u3096\u309d\u309e]/gu;

let loading: Promise<Readings> | undefined;

/** Builds kuromoji's tokenizer once per process (about a second and some 300 MB of RSS); later calls share it. */
export function loadReadings(): Promise<Readings> {
  loading ??= new Promise<Tokenizer>((resolve, reject) => {
    const dicPath = path.join(path.dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
    kuromoji.builder({ dicPath }).build((err, tokenizer) => (err ? reject(err) : resolve(tokenizer)));
  }).then((tokenizer) => {
    const readingOfPart = (part: string) => {
      let out = '';
      for (const token of tokenizer.tokenize(part)) {
        const surface = token.surface_form;
        if (token.reading && token.reading !== '*') out += token.reading;
        else if (HIRAGANA_ONLY.test(surface)) out += toKatakana(surface);
        else out += surface;
      }
      return out;
    };
    return {
      readingOf(text: string): string {
        // 異体字 first: IPADIC knows 高崎 but not 髙﨑. Each space-separated part is read on its own
        // and remembered: names repeat their parts (チェーン名 支店名), and kuromoji is most of the
        // cost of a POI write.
        return foldVariants(text)
          .split(/\s+/u)
          .filter(Boolean)
          .map((part) => remembered(readings, part, readingOfPart))
          .join(' ');
      },
    };
  });
  loading.catch(() => (loading = undefined));
  return loading;
}

// A dash or ー between two Latin letters (セブン-イレブン → sebun-irebun; wanakana writes a ー after no vowel as -).
const DASH_BETWEEN_LATIN = /(?<=[a-z])[-ー]+(?=[a-z])/g;

/**
 * Latin runs (a–z) spelt one way, so that stored romaji and Latin query words meet: long vowels
 * once (ou, oo → o; uu → u; aa → a; ii → i; ee, ei → e), doubled consonants once, m before b/m/p
 * as n, and a - or ー between two Latin letters dropped (toukyou = tokyo, oosaka = osaka, tawaa =
 * tawa, shimbashi = shinbashi). The rules of @poi/shared's looseLatin plus the dash; repeated until
 * nothing changes, so looseLatin(looseLatin(x)) === looseLatin(x). Other characters (upper case,
 * kana, kanji, digits) are left as they are.
 */
export function looseLatin(text: string): string {
  let out = text;
  for (;;) {
    const next = looseLatinRuns(out.replace(DASH_BETWEEN_LATIN, ''));
    if (next === out) return out;
    out = next;
  }
}

const romajiOfPart = (part: string) =>
  // As katakana first: wanakana lengthens a vowel by ー after katakana only (たわー → tawa-, タワー → tawaa).
  toRomaji(part.replace(HIRAGANA_CHAR, (c) => String.fromCodePoint(c.codePointAt(0)! + 0x60))).toLowerCase();

/**
 * The romaji of the kana in the text (wanakana's Hepburn, lower case; other characters as they
 * are; space-separated parts one by one), loosened as query romaji is (looseLatin): トウキョウタワー →
 * tokyotawa.
 */
export function romajiKey(text: string): string {
  return looseLatin(
    text
      .split(/\s+/u)
      .filter(Boolean)
      .map((part) => remembered(romaji, part, romajiOfPart))
      .join(' '),
  );
}

/** Readings and romaji of name parts already computed, up to REMEMBERED parts each (then forgotten at once). */
const REMEMBERED = 100_000;
const readings = new Map<string, string>();
const romaji = new Map<string, string>();
function remembered(cache: Map<string, string>, key: string, compute: (key: string) => string): string {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute(key);
    if (cache.size >= REMEMBERED) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/**
 * Katakana loanwords common in shop and place names, with the English they come from: a name's
 * reading that holds one can be found by the English word ("tokyo tower", "park hotel").
 * Only words of two or more kana that kanji readings do not spell by chance: バー (バーガー),
 * イン (ワイン), スパ (スパイス) and ジム (事務所 ジムショ, 藤村 フジムラ) are left out. A word inside a
 * longer one still counts (グランド holds ランド, スマート マート, サポート ポート).
 */
export const LOANWORDS: ReadonlyArray<readonly [katakana: string, english: string]> = [
  ['タワー', 'tower'],
  ['ホテル', 'hotel'],
  ['ステーション', 'station'],
  ['パーク', 'park'],
  ['カフェ', 'cafe'],
  ['コーヒー', 'coffee'],
  ['ラーメン', 'ramen'],
  ['ビル', 'building'],
  ['センター', 'center'],
  ['ストア', 'store'],
  ['マート', 'mart'],
  ['ショップ', 'shop'],
  ['モール', 'mall'],
  ['プラザ', 'plaza'],
  ['ガーデン', 'garden'],
  ['ホール', 'hall'],
  ['スクエア', 'square'],
  ['ブリッジ', 'bridge'],
  ['ミュージアム', 'museum'],
  ['ライブラリー', 'library'],
  ['ホスピタル', 'hospital'],
  ['クリニック', 'clinic'],
  ['ベーカリー', 'bakery'],
  ['レストラン', 'restaurant'],
  ['キッチン', 'kitchen'],
  ['ハウス', 'house'],
  ['ヒルズ', 'hills'],
  ['シティ', 'city'],
  ['タウン', 'town'],
  ['ゲート', 'gate'],
  ['ポート', 'port'],
  ['マリーナ', 'marina'],
  ['スタジアム', 'stadium'],
  ['アリーナ', 'arena'],
  ['シアター', 'theater'],
  ['スタジオ', 'studio'],
  ['リゾート', 'resort'],
  ['ランド', 'land'],
  ['ワールド', 'world'],
  ['ストリート', 'street'],
  ['アベニュー', 'avenue'],
  ['マーケット', 'market'],
  ['スーパー', 'super'],
  ['ファーム', 'farm'],
  ['ビーチ', 'beach'],
  ['アイランド', 'island'],
  ['テラス', 'terrace'],
  ['フォレスト', 'forest'],
  ['ギャラリー', 'gallery'],
  ['ピザ', 'pizza'],
  ['バーガー', 'burger'],
];

/** The English words of LOANWORDS whose katakana the reading holds, distinct, in table order. */
export function englishGlosses(katakanaReading: string): string[] {
  const out = new Set<string>();
  for (const [kana, english] of LOANWORDS) if (katakanaReading.includes(kana)) out.add(english);
  return [...out];
}
