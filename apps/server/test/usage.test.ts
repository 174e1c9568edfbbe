import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dayOf, yearMonthOf } from '@poi/shared/billing-time';
import { BASE_FEE_LINE, PLATFORM_RECIPIENT } from '../src/db/schema/usage';
import { displayPrefixOf, generateApiKey, hashApiKey } from '../src/modules/api-keys/key-format';
import { createUsageMeter } from '../src/modules/usage/usage-meter';
import { writeUsageEvents, type UsageEvent } from '../src/modules/usage/usage.repository';
import { createScratchDatabase, freePort, silentLog, withTestContext, type Actor, type TestContext } from './helpers';
import { usageEvent } from './support/usage-events';

let ctx: TestContext;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

async function newKey(who: Actor): Promise<string> {
  const res = await api('POST', '/api-keys', who, { name: '計測' });
  expect(res.statusCode).toBe(200);
  return res.json().data.key;
}

async function createDataset(who: Actor, name: string, price: number, asAdmin = false): Promise<string> {
  const res = asAdmin
    ? await api('POST', '/admin/datasets/assign', who, { name, price_per_search: price, assigned_user_id: null, provider_user_id: null })
    : await api('POST', '/datasets/public/create', who, { name, price_per_search: price });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.dataset_id;
}

function event(userId: string, datasetId: string, overrides: Partial<UsageEvent> = {}): UsageEvent {
  return usageEvent(userId, new Date(), {
    datasetIds: [datasetId],
    datasetPricesSen: [7],
    datasetSharesBp: [7000],
    datasetRecipientIds: [PLATFORM_RECIPIENT],
    baseFeeSen: 3,
    amountSen: 10,
    ...overrides,
  });
}

withTestContext({}, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

describe('usage meter', () => {
  it('writes in a run what was queued when it started; a flush asked meanwhile writes the rest after it', async () => {
    // Draining until empty kept a loaded server in one endless run of small statements.
    const written: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const meter = createUsageMeter({
      db: ctx.database.db,
      log: silentLog,
      write: async (batch) => {
        written.push(batch.length);
        if (written.length === 1) await gate;
        return batch.length;
      },
    });
    meter.record(event(randomUUID(), randomUUID()));
    meter.record(event(randomUUID(), randomUUID()));
    const first = meter.flush();
    meter.record(event(randomUUID(), randomUUID()));
    const second = meter.flush();
    expect(meter.flush()).toBe(second);
    release();
    expect(await first).toBe(2);
    expect(await second).toBe(1);
    expect(written).toEqual([2, 1]);
    expect(meter.pending()).toBe(0);
  });

  it('never counts an event twice when a flush is retried after an unknown outcome', async () => {
    const userId = randomUUID();
    const events = Array.from({ length: 250 }, () => event(userId, randomUUID()));
    let calls = 0;
    // The first write commits and then "times out": the meter keeps the batch and retries it.
    const meter = createUsageMeter({
      db: ctx.database.db,
      log: silentLog,
      write: async (batch) => {
        calls += 1;
        const stored = await writeUsageEvents(ctx.database.db, batch);
        if (calls === 1) throw new Error('connection lost after commit');
        return stored;
      },
    });
    for (const e of events) meter.record(e);
    await expect(meter.flush()).rejects.toThrow('connection lost');
    expect(meter.pending()).toBe(250);
    expect(await meter.flush()).toBe(0);
    expect(meter.pending()).toBe(0);
    const [daily] = await ctx.query<{ searches: string; amount: string }>(
      'SELECT sum(searches)::text AS searches, sum(amount_sen)::text AS amount FROM usage_daily WHERE user_id = $1',
      [userId],
    );
    expect(daily).toEqual({ searches: '250', amount: '2500' });
    const [perDataset] = await ctx.query<{ n: string }>('SELECT sum(searches)::text AS n FROM usage_dataset_daily WHERE user_id = $1', [userId]);
    expect(perDataset!.n).toBe('250');
    // The monthly rollups invoices read, and the raw rows (one per (request id, instant), the partitioned key).
    const monthly = async () => ({
      raw: (await ctx.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_events WHERE user_id = $1', [userId]))[0]!.n,
      charges: await ctx.query('SELECT dataset_id = $2 AS base, unit_price_sen, sum(searches)::int AS n FROM usage_charge_monthly WHERE user_id = $1 GROUP BY 1, 2 ORDER BY 1', [
        userId,
        BASE_FEE_LINE,
      ]),
      searches: (await ctx.query<{ searches: string }>('SELECT searches::text FROM usage_user_monthly WHERE user_id = $1', [userId])).map((r) => r.searches),
    });
    const expected = { raw: 250, charges: [{ base: false, unit_price_sen: 7, n: 250 }, { base: true, unit_price_sen: 3, n: 250 }], searches: ['250'] };
    expect(await monthly()).toEqual(expected);
    // The same events written again, as a blind retry would: nothing changes.
    expect(await writeUsageEvents(ctx.database.db, events)).toBe(0);
    expect((await ctx.query<{ n: string }>('SELECT sum(searches)::text AS n FROM usage_daily WHERE user_id = $1', [userId]))[0]!.n).toBe('250');
    expect(await monthly()).toEqual(expected);
  });

  it('keeps money exact over 100,000 events (no floating-point drift)', async () => {
    const consumer = await ctx.newUser('individual');
    const provider = await ctx.newUser('data_provider');
    const dataset = await createDataset(provider, '精度検証', 0.07);
    const meter = createUsageMeter({ db: ctx.database.db, log: silentLog });
    const N = 100_000;
    for (let i = 0; i < N; i++) {
      meter.record(event(consumer.id, dataset, { datasetRecipientIds: [provider.id], amountSen: 10, baseFeeSen: 3 }));
    }
    expect(await meter.flush()).toBe(N);
    // Adding 0.1 a hundred thousand times in binary floating point does not give 10000.
    let drift = 0;
    for (let i = 0; i < N; i++) drift += 0.1;
    expect(drift).not.toBe(10000);

    const summary = (await api('GET', `/usage/summary?year_month=${yearMonthOf()}`, consumer)).json().data;
    expect(summary.searches).toBe(N);
    expect(summary.amount).toBe(10000);
    expect(summary.by_dataset).toEqual([{ dataset_id: dataset, dataset_name: '精度検証', searches: N, amount: 7000 }]);
    const revenue = (await api('GET', `/datasets/revenue/monthly?year_month=${yearMonthOf()}`, provider)).json().data;
    // 0.07 × 100,000 × 70 % = 4,900 exactly.
    expect(revenue).toMatchObject({ total_revenue: 4900, total_searches: N, dataset_count: 1 });
  }, 120_000);
});

describe('revenue report', () => {
  it('matches a hand computation for providers and the platform admin', async () => {
    const p1 = await ctx.newUser('data_provider');
    const p2 = await ctx.newUser('data_provider');
    const platformAdmin = await ctx.newUser('platform_admin');
    const d1 = await createDataset(p1, '駅データ', 1.23);
    const d2 = await createDataset(p1, '公園データ', 0.07);
    const d5 = await createDataset(p1, 'まだ使われていない', 3);
    const d3 = await createDataset(p2, '他社データ', 2.5);
    const d4 = await createDataset(admin, 'プラットフォームデータ', 0.5, true);
    // Corporate consumers give providers 60 %, individual ones 70 % (the pricing in force).
    await ctx.query(
      `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, provider_share_bp, rate_limit_per_minute, max_api_keys)
       VALUES ('corporate', $1, 0.05, 10000, 6000, 6000, 50)`,
      [new Date(Date.now() - 1000).toISOString()],
    );
    ctx.app.changes.changed('pricing');
    const c1 = await newKey(await ctx.newUser('individual'));
    const c2 = await newKey(await ctx.newUser('corporate'));
    const run = async (key: string, datasets: string[], times: number) => {
      for (let i = 0; i < times; i++) {
        const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${datasets.join(',')}`, headers: { authorization: `Bearer ${key}` } });
        expect(res.statusCode, res.body).toBe(200);
      }
    };
    await run(c1, [d1], 3);
    await run(c1, [d1, d2, d4], 2);
    await run(c2, [d1, d3], 5);
    await run(c2, [d2], 1);

    // By hand: d1 = 5 × 1.23 × 0.7 + 5 × 1.23 × 0.6 = 4.305 + 3.69 = 7.995 → 7.99 (rounded down to the sen)
    //          d2 = 2 × 0.07 × 0.7 + 1 × 0.07 × 0.6 = 0.098 + 0.042 = 0.14
    //          d3 = 5 × 2.5 × 0.6 = 7.5;  d4 (platform) = 2 × 0.5 × 1.0 = 1.0
    const month = yearMonthOf();
    const mine = (await api('GET', `/datasets/revenue/monthly?year_month=${month}`, p1)).json().data;
    expect(mine).toEqual({
      year_month: month,
      total_revenue: 8.13,
      total_searches: 13,
      dataset_count: 3,
      datasets: [
        { dataset_id: d1, dataset_name: '駅データ', searches: 10, revenue: 7.99 },
        { dataset_id: d2, dataset_name: '公園データ', searches: 3, revenue: 0.14 },
        { dataset_id: d5, dataset_name: 'まだ使われていない', searches: 0, revenue: 0 },
      ],
    });
    const theirs = (await api('GET', `/datasets/revenue/monthly?year_month=${month}`, p2)).json().data;
    expect(theirs).toMatchObject({ total_revenue: 7.5, total_searches: 5, dataset_count: 1 });

    const all = (await api('GET', `/datasets/revenue/monthly?year_month=${month}`, platformAdmin)).json().data;
    const byId = new Map(all.datasets.map((d: { dataset_id: string; revenue: number; searches: number }) => [d.dataset_id, d]));
    expect(byId.get(d1)).toMatchObject({ searches: 10, revenue: 7.99 });
    expect(byId.get(d3)).toMatchObject({ searches: 5, revenue: 7.5 });
    expect(byId.get(d4)).toMatchObject({ searches: 2, revenue: 1 });

    const daily = (await api('GET', `/datasets/revenue/dataset/${d1}?year_month=${month}`, p1)).json().data;
    expect(daily).toMatchObject({ dataset_id: d1, dataset_name: '駅データ', searches: 10, revenue: 7.99 });
    expect(daily.daily.find((d: { date: string }) => d.date === dayOf())).toEqual({ date: dayOf(), searches: 10, revenue: 7.99 });
    expect((await api('GET', `/datasets/revenue/dataset/${d3}?year_month=${month}`, p1)).statusCode).toBe(404);

    // Last month: nothing earned yet, the provider's datasets listed at zero.
    const [y, m] = month.split('-').map(Number) as [number, number];
    const previous = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
    const before = (await api('GET', `/datasets/revenue/monthly?year_month=${previous}`, p1)).json().data;
    expect(before).toMatchObject({ total_revenue: 0, total_searches: 0, dataset_count: 3 });

    const consumer = await ctx.newUser('individual');
    const denied = await api('GET', '/datasets/revenue/monthly', consumer);
    expect(denied.statusCode).toBe(403);
    const badMonth = await api('GET', '/datasets/revenue/monthly?year_month=2026-13', p1);
    expect(badMonth.statusCode).toBe(400);
    expect(badMonth.json().error.message).toBe('年月は YYYY-MM の形式で指定してください');
  });
});

describe('shutdown', () => {
  it('stores every metered search when the server gets SIGTERM', async () => {
    const scratch = await createScratchDatabase({ onDisk: true });
    const key = generateApiKey();
    const datasetId = randomUUID();
    const seed = await scratch.open();
    const [user] = (await seed.db.execute(sql`INSERT INTO users (email, account_type) VALUES ('sigterm@example.com', 'corporate') RETURNING id`)).rows as Array<{ id: string }>;
    await seed.db.execute(sql`INSERT INTO api_keys (user_id, name, key_hash, prefix) VALUES (${user!.id}, 'k', ${hashApiKey(key)}, ${displayPrefixOf(key)})`);
    await seed.db.execute(sql`INSERT INTO datasets (id, name, price_per_search, is_platform_dataset) VALUES (${datasetId}, 'd', 0.25, true)`);
    await seed.close();

    const port = await freePort();
    const serverDir = fileURLToPath(new URL('..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'server.ts')], {
      cwd: serverDir,
      env: { ...process.env, ...scratch.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development', APP_SECRET: 'sigterm-test-secret-0123456789abcdef', WEB_DIST_DIR: '/nonexistent', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('POI Cloud is running')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      let ok = 0;
      const worker = async () => {
        for (let i = 0; i < 40; i++) {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } });
          if (res.status === 200) ok += 1;
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 5 }, worker));
      // Straight after the last answer: these searches are still in the meter's buffer.
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(ok).toBe(200);
      // The shutdown flush ran (it usually stores the last searches; the interval's flush, every
      // second, may have stored them a moment before SIGTERM: a race the count below does not mind).
      const shutdownLine = output.split('\n').find((l) => l.includes('usage stored at shutdown'));
      expect(shutdownLine, output.slice(-3000)).toMatch(/"stored":\d+/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }

    const check = await scratch.open();
    try {
      const rows = (await check.db.execute(sql`SELECT count(*)::int AS n, sum(amount_sen)::int AS amount FROM usage_events`)).rows as Array<{ n: number; amount: number }>;
      // 0.25 per search; the corporate free searches waive the base fee.
      expect(rows[0]).toEqual({ n: 200, amount: 200 * 25 });
      const daily = (await check.db.execute(sql`SELECT sum(searches)::int AS n FROM usage_daily`)).rows as Array<{ n: number }>;
      expect(daily[0]!.n).toBe(200);
    } finally {
      await check.close();
      await scratch.drop();
    }
  }, 120_000);
});
