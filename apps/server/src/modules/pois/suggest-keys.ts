/**
 * The type-ahead's keys (docs/search.md "Suggest"): what a person has typed so far, and each
 * POI's name and readings, folded one more step than the search folds them, so that a prefix of
 * what is typed is a prefix of what it should find.
 *
 * On top of @poi/shared/search-fold (width, case, hiragana → katakana, small kana, ー after kana,
 * symbols, ヶ/ケ/が between kanji, 異体字, loose romaji), suggestKey folds katakana further:
 *
 *  - long vowels once: ー goes, and a vowel kana after a kana of the same vowel goes (オオ, オウ,
 *    オー → オ; ウウ → ウ; アア → ア; イイ → イ; エイ, エエ → エ): おおとや, おうとや and おーとや all
 *    find 大戸屋 (read オオトヤ), とうきょう finds トーキョー;
 *  - loanwords' ヴ: ヴ → ブ, バ → ブア, ビ → ブイ, ベ → ブエ, ボ → ブオ, so that ヴィ = ビ, ヴァ = バ,
 *    ヴェ = ベ, ヴォ = ボ and ヴ = ブ (ヴィトン = ビトン);
 *  - ヂ → ジ, ヅ → ズ, ヲ → オ (what IMEs type for じ/ず/お);
 *  - カ, ガ, ケ after a kanji → ケ (the search's rule 7 looks at the next character too, which a
 *    prefix may not have typed yet: 三か is a prefix of 三か月 = 三ケ月).
 *
 * Every rule looks only at what came before, so the key of a prefix is a prefix of the key of the
 * whole: typing more never loses a POI an earlier prefix would have led to.
 *
 * Romaji: a Latin query is also read as kana (wanakana: Hepburn and kunrei/nihon-shiki alike —
 * shi/si, chi/ti, tsu/tu, fu/hu, ji/zi; nn and n' → ン, doubled consonants → ッ, m before b/m/p
 * → ン), and a trailing unfinished syllable (`shib`, `shik`, `tsh`, `n`) stands for every kana
 * it may become: `shik` → シカ, シキ, シク, シケ, シコ.
 */
import { foldSearchWord } from '@poi/shared/search-fold';
import { toKatakana } from 'wanakana';

const VOWEL_OF = new Map<string, string>();
{
  const rows: Array<[string, string]> = [
    ['a', 'アカガサザタダナハバパマヤラワ'],
    ['i', 'イキギシジチヂニヒビピミリヰ'],
    ['u', 'ウクグスズツヅヌフブプムユルヴ'],
    ['e', 'エケゲセゼテデネヘベペメレヱ'],
    ['o', 'オコゴソゾトドノホボポモヨロヲ'],
  ];
  for (const [v, kana] of rows) for (const k of kana) VOWEL_OF.set(k, v);
}
const DROPPED_AFTER: Record<string, string> = { a: 'ア', i: 'イ', u: 'ウ', e: 'イエ', o: 'ウオ' };
const REWRITE: Record<string, string> = { ヴ: 'ブ', バ: 'ブア', ビ: 'ブイ', ベ: 'ブエ', ボ: 'ブオ', ヂ: 'ジ', ヅ: 'ズ', ヲ: 'オ' };
const KANJI = /[\p{Script=Han}々]/u;

/** The suggest key of text already folded by foldSearchWord (see above). */
export function suggestKeyOfFolded(folded: string): string {
  let out = '';
  let vowel = '';
  let kanjiBefore = false;
  for (const ch of folded) {
    if (ch === 'ー') continue;
    if (kanjiBefore && (ch === 'カ' || ch === 'ガ' || ch === 'ケ')) {
      out += 'ケ';
      vowel = 'e';
      kanjiBefore = false;
      continue;
    }
    kanjiBefore = KANJI.test(ch);
    if (vowel && DROPPED_AFTER[vowel]!.includes(ch)) continue;
    const written = REWRITE[ch] ?? ch;
    out += written;
    vowel = VOWEL_OF.get(written.at(-1)!) ?? (written.at(-1) === 'ア' ? 'a' : written.at(-1) === 'イ' ? 'i' : written.at(-1) === 'エ' ? 'e' : written.at(-1) === 'オ' ? 'o' : '');
  }
  return out;
}

/** The suggest key of any text: the search's folding, then suggestKeyOfFolded. */
export const suggestKey = (text: string): string => suggestKeyOfFolded(foldSearchWord(text));

/** The kana an unfinished romaji syllable may become (its first kana; ャュョ and ッ are folded to full size). */
const PARTIAL: Record<string, string> = {
  k: 'カキクケコ', g: 'ガギグゲゴ', s: 'サシスセソ', z: 'ザジズゼゾ', j: 'ジ', t: 'タチツテト', d: 'ダヂヅデド',
  n: 'ンナニヌネノ', h: 'ハヒフヘホ', f: 'フ', b: 'バビブベボ', p: 'パピプペポ', m: 'マミムメモン', y: 'ヤユヨ',
  r: 'ラリルレロ', w: 'ワヲウ', v: 'ヴ', c: 'チ', l: 'アイウエオヤユヨツ', x: 'アイウエオヤユヨツ',
  sh: 'シ', ch: 'チ', ts: 'ツ', ky: 'キ', gy: 'ギ', sy: 'シ', zy: 'ジ', jy: 'ジ', ty: 'チ', cy: 'チ', dy: 'ヂ',
  ny: 'ニ', hy: 'ヒ', by: 'ビ', py: 'ピ', my: 'ミ', ry: 'リ', fy: 'フ', th: 'テ', dh: 'デ', kw: 'ク', gw: 'グ', ws: 'ウ',
};

/** What may follow the converted part for an unfinished romaji tail: kana alternatives, or undefined when it is no romaji. */
function partialKana(tail: string): string[] | undefined {
  if (!tail) return [''];
  // A doubled consonant before the unfinished syllable: っ (ツ once folded).
  if (tail.length >= 2 && tail[0] === tail[1] && tail[0] !== 'n') {
    const rest = partialKana(tail.slice(1));
    return rest?.map((k) => `ツ${k}`);
  }
  const kana = PARTIAL[tail];
  return kana === undefined ? undefined : [...kana];
}

/** Most keys one query becomes (an unfinished syllable gives up to 9). */
export interface SuggestQuery {
  /** Distinct suggest keys; a POI matches when a key of its name or a reading starts with or holds one. */
  keys: string[];
}

/**
 * The keys of what was typed: its own suggest key, and when it holds Latin letters, its reading
 * as romaji with the unfinished last syllable's alternatives. Empty when nothing is left to match
 * (only symbols).
 */
export function suggestQuery(typed: string): SuggestQuery {
  const keys = new Set<string>();
  const own = suggestKey(typed);
  if (own) keys.add(own);
  const plain = typed
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/gu, '')
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}']/gu, '');
  if (/[a-z]/.test(plain)) {
    let romaji = plain
      .replace(/m(?=[bmp])/g, 'n')
      // nn before a consonant or at the end is ン (wanakana writes ンン).
      .replace(/nn(?=[^aiueoy]|$)/g, "n'");
    // A lone n at the end may be ン or the start of ナ…ノ: an unfinished syllable like any other.
    const lastN = romaji.endsWith('n');
    if (lastN) romaji = romaji.slice(0, -1);
    const converted = toKatakana(romaji).replace(/'/g, '');
    const open = /[a-z]*$/.exec(converted)![0];
    const head = converted.slice(0, converted.length - open.length);
    // Latin left inside (not romaji, as in `star`): no kana reading.
    const alternatives = /[a-z]/.test(head) ? undefined : partialKana(lastN ? `${open}n` : open);
    for (const alt of alternatives ?? []) {
      const key = suggestKey(head + alt);
      if (key) keys.add(key);
    }
  }
  // A key that starts with another finds nothing more (what it is a prefix or part of, the shorter is too).
  const all = [...keys];
  return { keys: all.filter((k) => !all.some((other) => other !== k && k.startsWith(other))) };
}

export type SuggestMatch = 'exact' | 'name_prefix' | 'reading_prefix' | 'contains';
export const SUGGEST_MATCHES: readonly SuggestMatch[] = ['exact', 'name_prefix', 'reading_prefix', 'contains'];

const UNVOICED: Record<string, string> = {
  ガ: 'カ', ギ: 'キ', グ: 'ク', ゲ: 'ケ', ゴ: 'コ', ザ: 'サ', ジ: 'シ', ズ: 'ス', ゼ: 'セ', ゾ: 'ソ',
  ダ: 'タ', ヂ: 'チ', ヅ: 'ツ', デ: 'テ', ド: 'ト', バ: 'ハ', ビ: 'ヒ', ブ: 'フ', ベ: 'ヘ', ボ: 'ホ',
};
const VOICED_RE = /[ガギグゲゴザジズゼゾダヂヅデドバビブベボ]/gu;

/**
 * A reading's key with its voiced kana after the first unvoiced: kuromoji guesses 連濁 (大戸屋 →
 * オオドヤ, where the name is おおとや), and a person types the plain sound. The reading keeps its
 * own key too, so both are found; a word's first kana is never voiced by 連濁 and stays.
 */
export const unvoicedAfterFirst = (key: string): string => (key.length < 2 ? key : key[0]! + key.slice(1).replace(VOICED_RE, (c) => UNVOICED[c]!));

/** The separator of a row's keys in its suggest text (never in a key: keys hold letters and digits only). */
export const KEY_SEPARATOR = ' ';

/** Whether a field folds to something (foldSearchWord keeps every letter and digit NFKC leaves, and nothing else but ー). */
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const foldsToSomething = (field: string | null | undefined): boolean => !!field && LETTER_OR_DIGIT.test(field.normalize('NFKC'));

/** Keys already computed (names and reading runs repeat: chains, and one name in many rows). */
const nameKeys = new Map<string, string>();
const readingKeys = new Map<string, string>();
const MEMO_MAX = 100_000;
function remembered(memo: Map<string, string>, text: string, make: (text: string) => string): string {
  let out = memo.get(text);
  if (out === undefined) {
    if (memo.size >= MEMO_MAX) memo.clear();
    out = make(text);
    memo.set(text, out);
  }
  return out;
}

/** The keys of a reading run (the words of search_text after the fields), each with its unvoiced form, distinct, space-separated. */
function readingKeysOf(run: string, nameKey: string): string {
  const keys: string[] = [];
  const have = new Set([nameKey]);
  for (const word of run.split(' ')) {
    const key = suggestKeyOfFolded(word);
    for (const k of [key, unvoicedAfterFirst(key)]) {
      if (k && !have.has(k)) {
        have.add(k);
        keys.push(k);
      }
    }
  }
  return keys.join(KEY_SEPARATOR);
}

/**
 * A POI's suggest text: its name's key, then the keys of its readings (those unlike the name's),
 * space-separated. The readings are the words search_text holds after the POI's fields: the
 * name's katakana reading, its romaji and the English of its loanwords (search-columns.ts).
 */
export function suggestTextOf(fields: { name: string; address: string | null; category: string | null; tags: readonly string[] }, searchText: string): string {
  let fieldWords = (foldsToSomething(fields.name) ? 1 : 0) + (foldsToSomething(fields.address) ? 1 : 0) + (foldsToSomething(fields.category) ? 1 : 0);
  for (const tag of fields.tags) if (foldsToSomething(tag)) fieldWords += 1;
  const nameKey = remembered(nameKeys, fields.name, (name) => suggestKeyOfFolded(foldSearchWord(name)));
  // The reading run: what follows the field words.
  let at = 0;
  for (let k = 0; k < fieldWords && at >= 0; k++) {
    const space = searchText.indexOf(' ', at);
    at = space < 0 ? -1 : space + 1;
  }
  const run = at < 0 ? '' : searchText.slice(at);
  if (!run) return nameKey;
  const readings = remembered(readingKeys, `${nameKey} ${run}`, () => readingKeysOf(run, nameKey));
  return readings ? `${nameKey}${KEY_SEPARATOR}${readings}` : nameKey;
}

/** The name's key within a suggest text. */
export const nameKeyOf = (text: string): string => {
  const at = text.indexOf(KEY_SEPARATOR);
  return at < 0 ? text : text.slice(0, at);
};

/** How a POI's suggest text matches the query's keys: the best of the four, or undefined. */
export function matchOf(text: string, keys: readonly string[]): SuggestMatch | undefined {
  const name = nameKeyOf(text);
  let best: SuggestMatch | undefined;
  for (const key of keys) {
    if (!key) continue;
    if (name === key) return 'exact';
    if (name.startsWith(key)) best = 'name_prefix';
    else if (best !== 'name_prefix') {
      if (text.includes(KEY_SEPARATOR + key, name.length)) best = 'reading_prefix';
      else if (!best && text.includes(key)) best = 'contains';
    }
  }
  return best;
}

export const rankOf = (m: SuggestMatch): number => SUGGEST_MATCHES.indexOf(m);
