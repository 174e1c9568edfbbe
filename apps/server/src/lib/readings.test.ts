import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOANWORDS, englishGlosses, loadReadings, looseLatin, romajiKey, type Readings } from './readings';

/**
 * Readings of POI names. The readings asserted are what kuromoji 0.1.2 (IPADIC) gives,
 * each checked to be the name's usual reading. Names it reads wrong are left out of the
 * assertions; among them: やよい軒 ヤヨイノキ (ヤヨイケン), 心斎橋 ココロヒトシキョウ (シンサイバシ),
 * 首里城 クビサトジョウ (シュリジョウ), 神保町 ジンボウマチ (ジンボウチョウ), 等々力 トドリキ (トドロキ),
 * 両国 リョウコク (リョウゴク), 函館山 ハコダテサン (ハコダテヤマ), 海遊館 ウミ遊カン (カイユウカン),
 * 偕楽園 偕ラクエン (偕 unknown), すき家 スキカ, 和民 カズタミ, 魚民 サカナミン, 大戸屋 オオドヤ,
 * 三軒茶屋 サンゲンヂャヤ (ジャヤ).
 */

let readings: Readings;

beforeAll(async () => {
  const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
  const before = mb();
  const started = performance.now();
  readings = await loadReadings();
  const loadMs = performance.now() - started;
  console.log(`readings: loadReadings ${Math.round(loadMs)} ms, process RSS ${before} MB before, ${mb()} MB after load`);
}, 60_000);

describe('loadReadings', () => {
  it('builds the tokenizer once: a second call returns the same promise', () => {
    expect(loadReadings()).toBe(loadReadings());
  });
});

describe('readingOf', () => {
  it.each([
    ['東京タワー', 'トウキョウタワー'],
    ['東京駅', 'トウキョウエキ'],
    ['新宿御苑', 'シンジュクギョエン'],
    ['霞ケ関ビル', 'カスミガセキビル'],
    ['霞が関', 'カスミガセキ'],
    ['渋谷駅前店', 'シブヤエキマエテン'],
    ['大阪城', 'オオサカジョウ'],
    ['京都タワー', 'キョウトタワー'],
    ['札幌時計台', 'サッポロトケイダイ'],
    ['浅草寺', 'センソウジ'],
    ['上野動物園', 'ウエノドウブツエン'],
    ['横浜中華街', 'ヨコハマチュウカガイ'],
    ['名古屋城', 'ナゴヤジョウ'],
    ['博多ラーメン', 'ハカタラーメン'],
    ['表参道ヒルズ', 'オモテサンドウヒルズ'],
    ['スターバックス新橋店', 'スターバックスシンバシテン'],
    ['清水寺', 'キヨミズデラ'],
    ['金閣寺', 'キンカクジ'],
    ['道頓堀', 'ドウトンボリ'],
    ['六本木ヒルズ', 'ロッポンギヒルズ'],
    ['秋葉原駅', 'アキハバラエキ'],
    ['明治神宮', 'メイジジングウ'],
    ['日本橋三越', 'ニホンバシミツコシ'],
    ['築地市場', 'ツキジシジョウ'],
    ['吉祥寺', 'キチジョウジ'],
    ['厳島神社', 'イツクシマジンジャ'],
    ['伏見稲荷大社', 'フシミイナリタイシャ'],
    ['高田馬場', 'タカダノババ'],
    ['西日暮里', 'ニシニッポリ'],
    ['御徒町駅', 'オカチマチエキ'],
    ['鳥貴族', 'トリキゾク'],
    ['星乃珈琲店', 'ホシノコーヒーテン'],
    ['池袋サンシャインシティ', 'イケブクロサンシャインシティ'],
  ])('%s → %s', (name, reading) => {
    expect(readings.readingOf(name)).toBe(reading);
  });

  it('hiragana without a reading becomes katakana; Latin, digits and spaces stay as written', () => {
    expect(readings.readingOf('お台場海浜公園')).toBe('オダイバカイヒンコウエン');
    expect(readings.readingOf('らーめん一番')).toBe('ラーメンイチバン');
    expect(readings.readingOf('ABC 2号店')).toBe('ABC 2ゴウテン');
    expect(readings.readingOf('')).toBe('');
  });

  it('reads the common form of 異体字 (髙﨑屋 as 高崎屋)', () => {
    expect(readings.readingOf('髙﨑屋')).toBe('タカサキヤ');
  });

  it('handles many names a second (printed, not asserted)', () => {
    const parts = ['東京', 'タワー', '新宿', '御苑', 'ラーメン', 'カフェ', '駅前', '本店', '髙﨑', '屋', 'さくら', '札幌', '時計台', '横浜', '中華街', '寿司', '大阪', '城', 'Café', '公園', '2号店', '渋谷', 'ホテル', '浅草', '霞ケ関', 'ビル', '名古屋', 'スターバックス', '新橋', '店'];
    const names = fc.sample(fc.array(fc.constantFrom(...parts), { minLength: 1, maxLength: 4 }).map((a) => a.join('')), { numRuns: 20_000, seed: 21 });
    const started = performance.now();
    let chars = 0;
    for (const name of names) chars += readings.readingOf(name).length;
    const seconds = (performance.now() - started) / 1000;
    console.log(`readings: readingOf ${names.length.toLocaleString()} names in ${seconds.toFixed(2)} s, ${Math.round(names.length / seconds).toLocaleString()} names/s`);
    expect(chars).toBeGreaterThan(0);
  }, 120_000);
});

describe('romajiKey', () => {
  it.each([
    ['トウキョウタワー', 'tokyotawa'],
    ['とうきょうたわー', 'tokyotawa'],
    ['tokyo', 'tokyo'],
    ['Tokyo', 'tokyo'],
    ['オオサカ', 'osaka'],
    ['シンバシ', 'shinbashi'],
    ['shimbashi', 'shinbashi'],
    ['サッポロ', 'saporo'],
    ['ハカタラーメン', 'hakataramen'],
    ['セブン-イレブン', 'sebunirebun'],
    ['ABC 2ゴウテン', 'abc 2goten'],
    ['東京タワー', '東京tawa'],
  ])('%s → %s', (text, key) => {
    expect(romajiKey(text)).toBe(key);
  });

  it('shimbashi and シンバシ give the same key; toukyou and tokyo too', () => {
    expect(romajiKey('shimbashi')).toBe(romajiKey('シンバシ'));
    expect(romajiKey('toukyou')).toBe(romajiKey('トウキョウ'));
    expect(romajiKey('tokyo')).toBe(romajiKey('トウキョウ'));
  });

  it('a Latin query loosened by looseLatin meets the stored key of the reading', () => {
    for (const [query, name] of [
      ['tokyo tawa', '東京タワー'],
      ['Shimbashi', 'スターバックス新橋店'],
      ['sapporo', '札幌時計台'],
      ['oosaka', '大阪城'],
      ['shinjuku gyoen', '新宿御苑'],
    ] as const) {
      const key = romajiKey(readings.readingOf(name));
      for (const word of query.toLowerCase().split(' ')) expect(key, `${query} in ${name}`).toContain(looseLatin(word));
    }
  });
});

describe('looseLatin', () => {
  it.each([
    ['toukyou', 'tokyo'],
    ['tokyo', 'tokyo'],
    ['oosaka', 'osaka'],
    ['tawaa', 'tawa'],
    ['shimbashi', 'shinbashi'],
    ['shinbashi', 'shinbashi'],
    ['nihombashi', 'nihonbashi'],
    ['hokkaidou', 'hokaido'],
    ['sapporo', 'saporo'],
    ['kyuushuu', 'kyushu'],
    ['niigata', 'nigata'],
    ['meiji', 'meji'],
    ['nippon', 'nipon'],
    ['kitte', 'kite'],
    ['coffee', 'cofe'],
    ['ou', 'o'],
    ['ouou', 'o'],
    ['sebun-irebun', 'sebunirebun'],
    ['ra--men', 'ramen'],
    ['raーmen', 'ramen'],
    ['a-', 'a-'],
    ['-a', '-a'],
    ['東京 タワー', '東京 タワー'],
    ['2-3', '2-3'],
    ['Toukyou', 'Tokyo'],
    ['', ''],
  ])('%s → %s', (text, loose) => {
    expect(looseLatin(text)).toBe(loose);
  });

  it('is idempotent and leaves non-Latin characters as they are (200 seeded random strings)', () => {
    const alphabet = [...'aaeiiooouubkmmnnppsstty-ーAOンア東 1'];
    for (const s of fc.sample(fc.array(fc.constantFrom(...alphabet), { maxLength: 15 }).map((a) => a.join('')), { numRuns: 200, seed: 7 })) {
      const once = looseLatin(s);
      expect(looseLatin(once), s).toBe(once);
      // Only a–z, and a - or ー between two of them, may change.
      const rest = (t: string) => t.replace(/[a-z\-ー]/g, '');
      expect(rest(once), s).toBe(rest(s));
      expect(once, s).not.toMatch(/ou|uu|oo|aa|ii|ee|ei|([b-df-hj-np-tv-z])\1|m[bmp]|(?<=[a-z])[-ー]+(?=[a-z])/);
    }
  });
});

describe('LOANWORDS and englishGlosses', () => {
  it('holds at least 40 loanwords of 2+ katakana with their lower-case English, each once', () => {
    expect(LOANWORDS.length).toBeGreaterThanOrEqual(40);
    for (const [kana, english] of LOANWORDS) {
      expect(kana).toMatch(/^[\u30a1-\u30fa\u30fc]{2,}$/u);
      expect(english).toMatch(/^[a-z]+$/);
    }
    expect(new Set(LOANWORDS.map(([kana]) => kana)).size).toBe(LOANWORDS.length);
    const table = new Map(LOANWORDS);
    for (const [kana, english] of [
      ['タワー', 'tower'],
      ['ホテル', 'hotel'],
      ['ステーション', 'station'],
      ['カフェ', 'cafe'],
      ['ラーメン', 'ramen'],
      ['ビル', 'building'],
      ['ホスピタル', 'hospital'],
      ['ヒルズ', 'hills'],
      ['アベニュー', 'avenue'],
    ]) {
      expect(table.get(kana!), kana).toBe(english);
    }
  });

  it.each([
    ['トウキョウタワー', ['tower']],
    ['ハカタラーメン', ['ramen']],
    ['オモテサンドウヒルズ', ['hills']],
    ['カスミガセキビル', ['building']],
    ['パークホテルタワー', ['tower', 'hotel', 'park']],
    ['タワータワー', ['tower']],
    ['シンジュクギョエン', []],
    ['', []],
  ])('%s → %j', (reading, glosses) => {
    expect(englishGlosses(reading)).toEqual(glosses);
  });

  it('the readings of real names give their loanwords', () => {
    expect(englishGlosses(readings.readingOf('京都タワー'))).toEqual(['tower']);
    expect(englishGlosses(readings.readingOf('池袋サンシャインシティ'))).toEqual(['city']);
    expect(englishGlosses(readings.readingOf('渋谷駅前店'))).toEqual([]);
  });
});
