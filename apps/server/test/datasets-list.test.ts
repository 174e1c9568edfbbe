import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillDatasetSearchBatch } from '../src/modules/pois/search-backfill';
import { createTestContext, type Actor, type TestContext } from './helpers';

/** The dataset lists past 100 — paging, keyword, sort, validation, and the provider picker's search. */

let ctx: TestContext;
let admin: Actor;
let provider: Actor;
let other: Actor;

interface Listed {
  dataset_id: string;
  name: string;
  description: string | null;
  price_per_search: number;
  created_at: string;
}

const SEEDED = 130;
const seeded: Listed[] = [];

const api: TestContext['api'] = (...args) => ctx.api(...args);

async function create(who: Actor, body: { name: string; description?: string; price_per_search: number }): Promise<Listed> {
  const res = await api('POST', '/datasets/public/create', who, body);
  expect(res.statusCode).toBe(200);
  return res.json().data as Listed;
}

async function list(query: string, who: Actor = provider): Promise<{ datasets: Listed[]; total: number }> {
  const res = await api('GET', `/datasets/public?${query}`, who);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** Every page of a query, `limit` at a time, concatenated. */
async function everyPage(query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await list(`${query}&limit=${limit}&offset=${offset}`);
    ids.push(...page.datasets.map((d) => d.dataset_id));
    if (page.datasets.length < limit) return ids;
  }
}

const special = [
  { name: 'ｶﾌｪ・ﾒﾆｭｰ', description: '半角カナで登録したカフェのデータ', price_per_search: 0.3 },
  { name: 'ＴＯＫＹＯ Ｃａｆｅ ｓｅｌｅｃｔｉｏｎ', description: null, price_per_search: 0.3 },
  { name: '京都の寺社', description: '世界遺産を含む東山エリアの寺院と神社', price_per_search: 2 },
  { name: '100%_果汁スタンド', description: 'ジューススタンドの一覧', price_per_search: 0 },
];

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.admin();
  provider = await ctx.newProvider('data_provider');
  other = await ctx.newProvider('data_provider');
  // Prices repeat (five values), so each price order leans on its dataset_id tie-breaker.
  for (let i = 0; i < SEEDED - special.length; i++) {
    seeded.push(
      await create(provider, {
        name: `データセット${String(i).padStart(3, '0')}`,
        description: `連番のテスト用データ ${i}`,
        price_per_search: [0, 0.5, 1, 1, 10][i % 5]!,
      }),
    );
  }
  for (const s of special) seeded.push(await create(provider, { ...s, description: s.description ?? undefined }));
  // Not the provider's: must never appear in its managed list.
  await create(other, { name: 'ほかのプロバイダーのカフェ', price_per_search: 0 });
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

describe('paging past 100', () => {
  it('reaches every managed dataset exactly once over pages of 50, with the exact total', async () => {
    const pages = await Promise.all([0, 50, 100].map((offset) => list(`managed=true&limit=50&offset=${offset}`)));
    expect(pages.map((p) => p.datasets.length)).toEqual([50, 50, 30]);
    expect(pages.every((p) => p.total === SEEDED)).toBe(true);
    const ids = pages.flatMap((p) => p.datasets.map((d) => d.dataset_id));
    expect(new Set(ids).size).toBe(SEEDED);
    expect(new Set(ids)).toEqual(new Set(seeded.map((d) => d.dataset_id)));
  });

  it('answers the last page short, and no rows but the total at or past the end', async () => {
    const last = await list('managed=true&limit=100&offset=100');
    expect(last).toMatchObject({ total: SEEDED });
    expect(last.datasets).toHaveLength(30);
    const lastOne = await list(`managed=true&limit=100&offset=${SEEDED - 1}`);
    expect(lastOne.datasets).toHaveLength(1);
    for (const offset of [SEEDED, SEEDED + 1, 10_000]) {
      expect(await list(`managed=true&limit=100&offset=${offset}`)).toEqual({ datasets: [], total: SEEDED });
    }
  });

  it('counts the whole marketplace, other providers included', async () => {
    const all = await list('limit=1');
    expect(all.total).toBe(SEEDED + 1);
    expect((await list('limit=1', other)).total).toBe(SEEDED + 1);
    expect((await list('managed=true&limit=1', other)).total).toBe(1);
  });
});

describe('sorting', () => {
  const byId = (a: Listed, b: Listed) => (a.dataset_id < b.dataset_id ? -1 : a.dataset_id > b.dataset_id ? 1 : 0);
  const code = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const expected: Record<string, (a: Listed, b: Listed) => number> = {
    newest: (a, b) => code(b.created_at, a.created_at) || byId(b, a),
    // The databases collate by code point (C.UTF-8 on PostgreSQL, C on PGlite).
    name: (a, b) => code(a.name, b.name) || byId(a, b),
    price_asc: (a, b) => a.price_per_search - b.price_per_search || byId(a, b),
    price_desc: (a, b) => b.price_per_search - a.price_per_search || byId(b, a),
  };

  for (const sort of Object.keys(expected)) {
    it(`orders by ${sort} with a dataset_id tie-breaker, stable across pages of 7`, async () => {
      const want = [...seeded].sort(expected[sort]).map((d) => d.dataset_id);
      const first = await list(`managed=true&sort=${sort}&limit=100`);
      expect(first.datasets.map((d) => d.dataset_id)).toEqual(want.slice(0, 100));
      expect(await everyPage(`managed=true&sort=${sort}`, 7)).toEqual(want);
    });
  }

  it('filters and sorts together: paid, cheapest first', async () => {
    const paid = await list('managed=true&type=paid&sort=price_asc&limit=100');
    const prices = paid.datasets.map((d) => d.price_per_search);
    expect(prices.every((p) => p > 0)).toBe(true);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(paid.total).toBe(seeded.filter((d) => d.price_per_search > 0).length);
  });
});

describe('keyword', () => {
  const names = async (query: string) => (await list(`managed=true&limit=100&${query}`)).datasets.map((d) => d.name).sort();

  it('folds full-width and half-width input and case (NFKC + lower case)', async () => {
    // Half-width kana stored, full-width kana typed, and the reverse.
    expect(await names(`keyword=${encodeURIComponent('カフェ')}`)).toEqual(['ｶﾌｪ・ﾒﾆｭｰ']);
    expect(await names(`keyword=${encodeURIComponent('ﾒﾆｭｰ')}`)).toEqual(['ｶﾌｪ・ﾒﾆｭｰ']);
    // Full-width Latin typed in any case finds full-width Latin stored.
    expect(await names(`keyword=${encodeURIComponent('ｔｏｋｙｏ')}`)).toEqual(['ＴＯＫＹＯ Ｃａｆｅ ｓｅｌｅｃｔｉｏｎ']);
    expect(await names(`keyword=${encodeURIComponent('CAFE')}`)).toEqual(['ＴＯＫＹＯ Ｃａｆｅ ｓｅｌｅｃｔｉｏｎ']);
  });

  it('searches the description too, with 1, 2 and 3+ character keywords, and every word of several', async () => {
    expect(await names(`keyword=${encodeURIComponent('東山エリア')}`)).toEqual(['京都の寺社']);
    expect(await names(`keyword=${encodeURIComponent('寺院')}`)).toEqual(['京都の寺社']);
    expect(await names(`keyword=${encodeURIComponent('寺')}`)).toEqual(['京都の寺社']);
    expect(await names(`keyword=${encodeURIComponent('汁')}`)).toEqual(['100%_果汁スタンド']);
    expect(await names(`keyword=${encodeURIComponent('Ｔ')}`)).toEqual(['ＴＯＫＹＯ Ｃａｆｅ ｓｅｌｅｃｔｉｏｎ']);
    expect(await names(`keyword=${encodeURIComponent('遺')}`)).toEqual(['京都の寺社']);
    expect(await names(`keyword=${encodeURIComponent('京都　神社')}`)).toEqual(['京都の寺社']);
    expect(await names(`keyword=${encodeURIComponent('京都 カフェ')}`)).toEqual([]);
    // A word spelled across name and description matches nothing.
    expect(await names(`keyword=${encodeURIComponent('寺社世界')}`)).toEqual([]);
  });

  it('folds as the POI search does: kana, symbols and spaces inside a name', async () => {
    expect(await names(`keyword=${encodeURIComponent('かふぇ')}`)).toEqual(['ｶﾌｪ・ﾒﾆｭｰ']);
    expect(await names(`keyword=${encodeURIComponent('カフエメニュー')}`)).toEqual(['ｶﾌｪ・ﾒﾆｭｰ']);
    expect(await names(`keyword=${encodeURIComponent('tokyocafe')}`)).toEqual(['ＴＯＫＹＯ Ｃａｆｅ ｓｅｌｅｃｔｉｏｎ']);
    // % and _ are symbols: never patterns, and left out like ・ and -.
    expect(await names(`keyword=${encodeURIComponent('100%_果汁')}`)).toEqual(['100%_果汁スタンド']);
    expect(await names(`keyword=${encodeURIComponent('果汁-スタンド')}`)).toEqual(['100%_果汁スタンド']);
    expect((await list(`managed=true&keyword=${encodeURIComponent('%_・')}&limit=1`)).total).toBe(SEEDED);
  });

  it('pages a keyword with the exact total, and a blank keyword is no keyword', async () => {
    const q = `keyword=${encodeURIComponent('データセット')}`;
    const first = await list(`managed=true&${q}&limit=100`);
    expect(first.total).toBe(SEEDED - special.length);
    expect(first.datasets).toHaveLength(100);
    const rest = await list(`managed=true&${q}&limit=100&offset=100`);
    expect(rest.datasets).toHaveLength(SEEDED - special.length - 100);
    expect((await list(`managed=true&keyword=${encodeURIComponent('０９９')}`)).datasets.map((d) => d.name)).toEqual(['データセット099']);
    expect((await list('managed=true&keyword=%20%20&limit=1')).total).toBe(SEEDED);
  });

  it('combines with the filter and the managed scope', async () => {
    expect(await names(`type=free&keyword=${encodeURIComponent('カフェ')}`)).toEqual([]);
    const everyone = (await list(`keyword=${encodeURIComponent('カフェ')}&limit=100`)).datasets.map((d) => d.name).sort();
    expect(everyone).toEqual(['ほかのプロバイダーのカフェ', 'ｶﾌｪ・ﾒﾆｭｰ']);
  });
});

describe('validation', () => {
  const cases: Array<[string, string]> = [
    ['sort=cheap', '並び順(sort)は newest・name・price_asc・price_desc のいずれかで指定してください'],
    ['type=cheap', '絞り込み(type)は all・paid・free・platform・provider のいずれかで指定してください'],
    ['limit=0', '件数(limit)は1から100までの整数で指定してください'],
    ['limit=101', '件数(limit)は1から100までの整数で指定してください'],
    ['limit=abc', '件数(limit)は1から100までの整数で指定してください'],
    ['limit=1.5', '件数(limit)は1から100までの整数で指定してください'],
    ['offset=-1', '開始位置(offset)は0から1000000までの整数で指定してください'],
    ['offset=x', '開始位置(offset)は0から1000000までの整数で指定してください'],
    [`keyword=${'あ'.repeat(101)}`, 'キーワードは100文字以内で入力してください'],
  ];
  for (const [query, message] of cases) {
    it(`answers 400 in Japanese for ${query.slice(0, 20)}`, async () => {
      const res = await api('GET', `/datasets/public?${encodeURI(query)}`, provider);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message } });
    });
  }

  it('takes blank parameters as their defaults', async () => {
    const res = await list('type=&sort=&limit=&offset=&keyword=');
    expect(res.datasets.length).toBe(50);
  });
});

describe('stored search text', () => {
  it('of rows migration 0007 wrote is rewritten by the back-fill (migration 0015) to what a new dataset stores', async () => {
    const dir = path.join(import.meta.dirname, '../src/db/migrations');
    const file = readdirSync(dir).find((f) => /^\d+_dataset_list_search\.sql$/.test(f))!;
    const updates = readFileSync(path.join(dir, file), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
      .filter((s) => s.startsWith('UPDATE'));
    expect(updates).toHaveLength(2);
    const before = await ctx.query<{ id: string; search_text: string; search_grams: string[] }>(
      'SELECT id, search_text, search_grams FROM datasets ORDER BY id',
    );
    // As 0007 left existing rows (NFKC + case), marked stale as 0015 marks them.
    for (const u of updates) await ctx.query(u);
    await ctx.query('UPDATE datasets SET search_version = 0');
    const old = await ctx.query<{ search_text: string }>('SELECT search_text FROM datasets ORDER BY id');
    expect(old.find((r) => r.search_text.startsWith('カフェ・メニュー'))!.search_text).toBe('カフェ・メニュー 半角カナで登録したカフェのデータ');
    let rewritten = 0;
    for (;;) {
      const n = await backfillDatasetSearchBatch(ctx.database.db, 50);
      if (!n) break;
      rewritten += n;
    }
    expect(rewritten).toBe(before.length);
    const after = await ctx.query<{ id: string; search_text: string; search_grams: string[] }>(
      'SELECT id, search_text, search_grams FROM datasets ORDER BY id',
    );
    expect(after.map((r) => r.search_text)).toEqual(before.map((r) => r.search_text));
    expect(after.map((r) => [...r.search_grams].sort())).toEqual(before.map((r) => [...r.search_grams].sort()));
    const cafe = after.find((r) => r.search_text.startsWith('カフエメニユー'))!;
    expect(cafe.search_text).toBe('カフエメニユー 半角カナデ登録シタカフエノデータ');
    // Every character and 2-character substring, none with the space.
    expect(cafe.search_grams).toEqual(expect.arrayContaining(['カ', 'ー', 'カフ', 'ユー', 'デー']));
    expect(cafe.search_grams.some((g) => /\s/.test(g))).toBe(false);
  });
});

describe('provider picker search', () => {
  it('finds the 101st data provider by a keyword, folded like the lists', async () => {
    // 101 more data providers straight into the table; the last one has a distinctive name.
    await ctx.query(
      `INSERT INTO users (email, display_name, account_type, created_at)
       SELECT 'bulk-provider-' || i || '@example.com', 'プロバイダー' || i, 'data_provider', now() + (i || ' seconds')::interval
       FROM generate_series(1, 100) AS i`,
    );
    await ctx.query(
      `INSERT INTO users (email, display_name, account_type, created_at) VALUES ('ｍｉｎａｔｏ@example.com', 'ﾐﾅﾄ測量', 'data_provider', now() + interval '1 hour')`,
    );
    const page = await api('GET', '/admin/users?account_type=data_provider&limit=100&order=asc', admin);
    const firstPage = page.json().data as { users: Array<{ email: string }>; total: number };
    expect(firstPage.total).toBeGreaterThan(100);
    expect(firstPage.users.map((u) => u.email)).not.toContain('ｍｉｎａｔｏ@example.com');
    for (const keyword of ['ミナト', 'ﾐﾅﾄ', 'MINATO', 'ｍｉｎａｔｏ']) {
      const res = await api('GET', `/admin/users?account_type=data_provider&limit=100&keyword=${encodeURIComponent(keyword)}`, admin);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.users.map((u: { display_name: string }) => u.display_name)).toEqual(['ﾐﾅﾄ測量']);
    }
  });
});
