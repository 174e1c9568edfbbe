import { normalizeSearchText, characterBigrams } from '@poi/shared/text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../src/db/sql';
import { backfillSearchBatch, createSearchBackfill } from '../src/modules/pois/search-backfill';
import { SEARCH_FOLD_VERSION, setStaleSearchRows, staleSearchRowsMayExist } from '../src/modules/pois/search-columns';
import { createTestContext, type ApiMethod, type TestContext } from './helpers';

/**
 * Migration 0014's back-fill: POIs stored before the folding and readings get them, in batches,
 * resuming after a stop, without touching what the provider typed or updated_at.
 */
let ctx: TestContext;
let token: string;
let dataset: string;
const NAMES = ['カフェ・ド・パリ', '東京タワー', '髙﨑屋', 'セブン-イレブン 港店', '霞ヶ関ビル', 'ラーメン一番', 'Café Bleu'];

/** ctx.api as the provider. */
const api = (method: ApiMethod, url: string, body?: unknown) => ctx.api(method, url, token, body);
const found = async (keyword: string) =>
  (await api('GET', `/poi/search?dataset_id=${dataset}&limit=100&keyword=${encodeURIComponent(keyword)}`)).json().data.pois.map((p: { name: string }) => p.name);

/** Puts rows back the way the server stored them before migration 0014 (NFKC + case, no readings). */
async function makeStale() {
  const rows = await ctx.query<{ id: string; name: string; address: string | null; category: string | null; tags: string[] }>(
    'SELECT id, name, address, category, tags FROM pois WHERE dataset_id = $1',
    [dataset],
  );
  for (const r of rows) {
    const old = normalizeSearchText([r.name, r.address, r.category, ...r.tags].filter(Boolean).join(' '));
    await ctx.query(`UPDATE pois SET search_text = $2, search_bigrams = $3::text[], search_name = '', search_version = 0 WHERE id = $1`, [r.id, old, arrayLiteral(characterBigrams(old))]);
  }
}

beforeAll(async () => {
  ctx = await createTestContext();
  token = (await ctx.newProvider('provider')).token;
  dataset = await ctx.newDataset(token, { name: '移行' });
  for (const name of NAMES) {
    expect((await api('POST', '/poi/register', { dataset_id: dataset, name, latitude: 35.6, longitude: 139.7 })).statusCode).toBe(200);
  }
  await ctx.app.searchBackfill.stop();
});
afterAll(async () => {
  await ctx?.close();
});

describe('search back-fill (migration 0014)', () => {
  it('writes new POIs with the current folding at once', async () => {
    const [row] = await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE dataset_id = $1 AND search_version = $2', [dataset, SEARCH_FOLD_VERSION]);
    expect(row!.n).toBe(NAMES.length);
    expect(await found('とうきょうたわー')).toEqual(['東京タワー']);
  });

  it('rewrites stale rows in batches, resumes after a stop, and leaves fields and updated_at alone', async () => {
    await makeStale();
    setStaleSearchRows(true);
    const before = await ctx.query<{ id: string; name: string; updated_at: string }>('SELECT id, name, updated_at::text FROM pois WHERE dataset_id = $1 ORDER BY id', [dataset]);
    // Until they are rewritten, stale rows are found as the old search found them (NFKC + case),
    // keywords of the new folding that their old text holds included.
    expect(await found('とうきょうたわー')).toEqual([]);
    expect(await found('高崎屋')).toEqual([]);
    expect(await found('カフェ')).toEqual(['カフェ・ド・パリ']);
    expect(await found('ｾﾌﾞﾝ-ｲﾚﾌﾞﾝ')).toEqual(['セブン-イレブン 港店']);
    expect(await found('霞ヶ関')).toEqual(['霞ヶ関ビル']);
    expect(await found('CAFÉ')).toEqual(['Café Bleu']);
    const near = await api('GET', `/poi/search?dataset_id=${dataset}&keyword=${encodeURIComponent('カフェ')}&latitude=35.6&longitude=139.7&radius=1000`);
    expect(near.json().data.pois.map((p: { name: string }) => p.name)).toEqual(['カフェ・ド・パリ']);

    // One batch, then the process "stops": the rest stays stale and is found by its old columns.
    expect(await backfillSearchBatch(ctx.database.db, 3)).toBe(3);
    const [left] = await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM pois WHERE search_version < $1', [SEARCH_FOLD_VERSION]);
    expect(left!.n).toBe(NAMES.length - 3);
    expect(await found('ラーメン')).toEqual(['ラーメン一番']);

    // The next start resumes where the table says; two runs at once rewrite each row once.
    const log = ctx.app.log;
    const [x, y] = await Promise.all([createSearchBackfill({ db: ctx.database.db, log, batchSize: 2 }).runToEnd(), createSearchBackfill({ db: ctx.database.db, log, batchSize: 2 }).runToEnd()]);
    expect(x + y).toBe(NAMES.length - 3);
    expect(await backfillSearchBatch(ctx.database.db, 100)).toBe(0);

    const after = await ctx.query<{ id: string; name: string; updated_at: string }>('SELECT id, name, updated_at::text FROM pois WHERE dataset_id = $1 ORDER BY id', [dataset]);
    expect(after).toEqual(before);
    // The back-fill found no row left: searches stop matching the old forms.
    expect(staleSearchRowsMayExist()).toBe(false);
    expect(await found('とうきょうたわー')).toEqual(['東京タワー']);
    expect(await found('高崎屋')).toEqual(['髙﨑屋']);
    expect(await found('かふぇ')).toEqual(['カフェ・ド・パリ']);
    expect(await found('セブンイレブン')).toEqual(['セブン-イレブン 港店']);
    expect(await found('霞が関')).toEqual(['霞ヶ関ビル']);
    // Café by its folded Latin, カフェ by the English of its loanword.
    expect(await found('cafe')).toEqual(['Café Bleu', 'カフェ・ド・パリ']);
  });

  it('reports its progress on /healthz', async () => {
    await makeStale();
    expect(await ctx.app.searchBackfill.runToEnd()).toBe(NAMES.length);
    const health = (await ctx.app.inject({ method: 'GET', url: '/healthz' })).json();
    expect(health.search_backfill).toMatchObject({ running: false, rewritten: NAMES.length });
    expect(health.search_backfill.per_second).toBeGreaterThan(0);
  });
});
