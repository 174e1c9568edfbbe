import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { yearMonthOf } from '@poi/shared/billing-time';
import { buildApp } from '../src/app';
import { BudgetExceededError, createBudgetGuard, type BudgetGuard } from '../src/modules/budgets/budget-guard';
import { createTestContext, silentLog, uniqueEmail, consoleApi, type ApiMethod, type Actor, type Caller, type TestContext } from './helpers';

let ctx: TestContext;
let provider: Actor;
/** ¥10 a search: with the 10 % tax, n searches cost exactly ¥11 × n (the base fee is within the free searches). */
let dataset: string;

const LIMIT_MESSAGE = '予算は1〜100,000,000円の整数で入力してください';

/** ctx.api, or the same call on another instance of the server. */
const api = (method: ApiMethod, url: string, who?: Caller, body?: unknown, app: FastifyInstance = ctx.app) => consoleApi(app, method, url, who, body);

async function newKey(who: Actor): Promise<string> {
  const res = await api('POST', '/api-keys', who, { name: '予算' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.key;
}

const search = (key: string, app: FastifyInstance = ctx.app) =>
  app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${dataset}&limit=5`, headers: { 'x-api-key': key } });

async function searchTimes(key: string, n: number, app: FastifyInstance = ctx.app): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await search(key, app)).statusCode);
  return statuses;
}

async function storedSearches(userId: string): Promise<number> {
  await ctx.app.usageMeter.flush();
  return Number((await ctx.query<{ n: string }>('SELECT count(*)::text AS n FROM usage_events WHERE user_id = $1', [userId]))[0]!.n);
}

const alertMails = (email: string) => ctx.mailbox.received.filter((m) => m.to === email.toLowerCase() && m.subject.includes('予算'));

async function waitForMails(email: string, n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (alertMails(email).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('data_provider');
  dataset = await ctx.newDataset(provider, { name: '予算検証', price: 10 });
});

afterAll(async () => {
  await ctx?.close();
});

describe('budget settings', () => {
  it('answers 401 without a session', async () => {
    expect((await api('GET', '/billing/budget')).statusCode).toBe(401);
    expect((await api('POST', '/billing/budget', undefined, { monthly_limit: 100, hard_stop: false })).statusCode).toBe(401);
  });

  it('refuses limits that are not whole yen from 1 to 100,000,000, in Japanese', async () => {
    const user = await ctx.newUser('individual');
    for (const monthly_limit of [0, -5, 1.5, 100_000_001, '1000']) {
      const res = await api('POST', '/billing/budget', user, { monthly_limit, hard_stop: false });
      expect(res.statusCode, String(monthly_limit)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().errors).toContainEqual({ field: 'monthly_limit', message: LIMIT_MESSAGE });
    }
    const missing = await api('POST', '/billing/budget', user, { monthly_limit: 1000 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('hard_stop');
    expect(missing.json().error.message).toMatch(/[ぁ-んァ-ヶ一-龠]/);
    expect((await ctx.query('SELECT 1 FROM budgets b JOIN billing_accounts ba ON ba.id = b.billing_account_id WHERE ba.user_id = $1', [user.id])).length).toBe(0);
  });

  it('sets, reads and removes a budget, creating the billing account and writing audit rows', async () => {
    const user = await ctx.newUser('individual');
    const empty = await api('GET', '/billing/budget', user);
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toEqual({ monthly_limit: null, hard_stop: false, spent_this_month: 0, alerts_sent: [] });

    const set = await api('POST', '/billing/budget', user, { monthly_limit: 5000, hard_stop: true });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toEqual({ monthly_limit: 5000, hard_stop: true, spent_this_month: 0, alerts_sent: [] });
    const [account] = await ctx.query<{ id: string }>('SELECT id FROM billing_accounts WHERE user_id = $1', [user.id]);
    expect(account).toBeDefined();
    expect((await api('GET', '/billing/budget', user)).json().data).toEqual({ monthly_limit: 5000, hard_stop: true, spent_this_month: 0, alerts_sent: [] });

    expect((await api('POST', '/billing/budget', user, { monthly_limit: 8000, hard_stop: false })).json().data.monthly_limit).toBe(8000);
    const removed = await api('POST', '/billing/budget', user, { monthly_limit: null, hard_stop: false });
    expect(removed.json().data).toEqual({ monthly_limit: null, hard_stop: false, spent_this_month: 0, alerts_sent: [] });
    expect((await ctx.query('SELECT 1 FROM budgets WHERE billing_account_id = $1', [account!.id])).length).toBe(0);

    const audit = await ctx.query<{ action: string; actor_id: string; before: unknown; after: unknown }>(
      `SELECT action, actor_id, before, after FROM audit_logs WHERE target_type = 'billing_account' AND target_id = $1 ORDER BY id`,
      [account!.id],
    );
    expect(audit).toEqual([
      { action: 'budget.set', actor_id: user.id, before: null, after: { monthly_limit: 5000, hard_stop: true } },
      { action: 'budget.set', actor_id: user.id, before: { monthly_limit: 5000, hard_stop: true }, after: { monthly_limit: 8000, hard_stop: false } },
      { action: 'budget.remove', actor_id: user.id, before: { monthly_limit: 8000, hard_stop: false }, after: null },
    ]);
  });

  it('lets a trial user set a budget (free searches cost nothing, so it never stops them)', async () => {
    const user = await ctx.newUser('trial');
    const res = await api('POST', '/billing/budget', user, { monthly_limit: 1, hard_stop: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ monthly_limit: 1, hard_stop: true, spent_this_month: 0 });
  });
});

describe('budget enforcement and alerts', () => {
  it('stops a hard-stopped caller with 402 before the search, bills nothing, and leaves other callers alone', async () => {
    const user = await ctx.newUser('individual');
    const other = await ctx.newUser('individual');
    const [key, otherKey] = [await newKey(user), await newKey(other)];
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 55, hard_stop: true })).statusCode).toBe(200);

    // 5 searches cost ¥55 with tax: exactly the limit. The 6th would make it ¥66.
    expect(await searchTimes(key, 5)).toEqual([200, 200, 200, 200, 200]);
    const stopped = await search(key);
    expect(stopped.statusCode).toBe(402);
    expect(stopped.json().error).toMatchObject({
      code: 'BUDGET_EXCEEDED',
      message: '今月の予算上限(¥55)に達したため、検索を停止しています。/billing で予算を変更してください',
    });
    expect(await storedSearches(user.id)).toBe(5);
    expect((await search(key)).statusCode).toBe(402);
    expect(await storedSearches(user.id)).toBe(5);
    expect((await api('GET', '/billing/budget', user)).json().data).toMatchObject({ spent_this_month: 55, monthly_limit: 55 });

    // Someone else's searches go on.
    expect(await searchTimes(otherKey, 7)).toEqual(Array(7).fill(200));

    // Raising the budget lets the searches continue at once.
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 66, hard_stop: true })).statusCode).toBe(200);
    expect(await searchTimes(key, 2)).toEqual([200, 402]);
    expect(await storedSearches(user.id)).toBe(6);
  });

  it('is exact under concurrency: parallel searches never take more than the budget', async () => {
    const user = await ctx.newUser('individual');
    const key = await newKey(user);
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 33, hard_stop: true })).statusCode).toBe(200);
    const statuses = (await Promise.all(Array.from({ length: 12 }, () => search(key)))).map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
    expect(await storedSearches(user.id)).toBe(3);
  });

  it('makes corporate members share their corporate account budget (set by its owner or billing member)', async () => {
    const owner = await ctx.newUser('corporate');
    const member = await ctx.newUser('corporate');
    const billingEmail = uniqueEmail('corp-billing');
    const [corp] = await ctx.query<{ id: string }>(
      `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method)
       VALUES ('active', '予算検証株式会社', 'ヨサンケンショウ', '100-0001', '東京都千代田区1-1', '03-0000-0000', '経理 太郎', ARRAY[$1], 'card') RETURNING id`,
      [billingEmail],
    );
    await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = 'owner' WHERE id = $2`, [corp!.id, owner.id]);
    await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = 'member' WHERE id = $2`, [corp!.id, member.id]);
    const [ownerKey, memberKey] = [await newKey(owner), await newKey(member)];

    const refused = await api('POST', '/billing/budget', member, { monthly_limit: 1000, hard_stop: false });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe('法人アカウントの予算を変更できるのは、オーナーまたは請求担当のメンバーです');
    expect((await api('POST', '/billing/budget', owner, { monthly_limit: 55, hard_stop: true })).statusCode).toBe(200);
    const [account] = await ctx.query<{ id: string; kind: string }>('SELECT id, kind FROM billing_accounts WHERE corporate_account_id = $1', [corp!.id]);
    expect(account!.kind).toBe('corporate');

    // ¥11 a search, together: 3 by the owner and 2 by the member reach ¥55.
    expect(await searchTimes(ownerKey, 3)).toEqual([200, 200, 200]);
    expect(await searchTimes(memberKey, 2)).toEqual([200, 200]);
    await ctx.app.usageMeter.flush();
    expect((await api('GET', '/billing/budget', member)).json().data).toEqual({ monthly_limit: 55, hard_stop: true, spent_this_month: 55, alerts_sent: [50, 80, 100] });
    expect((await search(memberKey)).json().error.code).toBe('BUDGET_EXCEEDED');
    expect((await search(ownerKey)).statusCode).toBe(402);
    expect((await storedSearches(owner.id)) + (await storedSearches(member.id))).toBe(5);

    // The alerts go to the corporate account's billing addresses, not to the members; the three
    // thresholds were passed within one flush: one mail, of the highest.
    await waitForMails(billingEmail, 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(alertMails(billingEmail).map((m) => m.subject)).toEqual(['【POI Cloud】今月のご利用額が予算の上限に達しました']);
    expect(alertMails(owner.email)).toHaveLength(0);
  });

  it('starts every Japan-time month from zero, and another instance loads the same cost from the database', async () => {
    const user = await ctx.newUser('individual');
    const key = await newKey(user);
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 22, hard_stop: true })).statusCode).toBe(200);
    expect(await searchTimes(key, 3)).toEqual([200, 200, 402]);
    await ctx.app.usageMeter.flush();

    // A second instance's guard, on the same database: it loads ¥22 spent and stops the next search too.
    const guard: BudgetGuard = createBudgetGuard({
      db: ctx.database.db,
      mailer: { send: async () => {}, close() {} },
      log: silentLog,
      publicUrl: 'http://console.test',
      flush: () => guard.afterFlush(),
    });
    await guard.start();
    const thisMonth = yearMonthOf();
    expect(() => guard.reserve(user.id, thisMonth, [dataset], [1000], 0)).toThrow(BudgetExceededError);
    const [y, m] = thisMonth.split('-').map(Number) as [number, number];
    const nextMonth = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
    // The next month starts from nothing: two ¥11 searches fit, the third does not.
    const first = guard.reserve(user.id, nextMonth, [dataset], [1000], 0);
    const second = guard.reserve(user.id, nextMonth, [dataset], [1000], 0);
    expect(first && second).toBeTruthy();
    expect(() => guard.reserve(user.id, nextMonth, [dataset], [1000], 0)).toThrow(BudgetExceededError);
    // A search that failed gives its reservation back.
    guard.release(second!);
    expect(guard.reserve(user.id, nextMonth, [dataset], [1000], 0)).toBeTruthy();
  });

  it('mails the 100 % alert once a month: crossing, raising the budget and crossing again sends one mail; the next month mails again', async () => {
    const user = await ctx.newUser('individual');
    const key = await newKey(user);
    const FULL = '【POI Cloud】今月のご利用額が予算の上限に達しました';
    const fullMails = () => alertMails(user.email).filter((m) => m.subject === FULL);
    const settle = async () => {
      await ctx.app.usageMeter.flush();
      await new Promise((r) => setTimeout(r, 300));
    };
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 22, hard_stop: false })).statusCode).toBe(200);
    expect(await searchTimes(key, 2)).toEqual([200, 200]); // ¥22 = 100 %
    await ctx.app.usageMeter.flush();
    await waitForMails(user.email, 1);
    expect(fullMails()).toHaveLength(1);

    // Raised to ¥44 and crossed again (¥44): no second 100 % mail this month.
    const raised = await api('POST', '/billing/budget', user, { monthly_limit: 44, hard_stop: false });
    expect(raised.json().data).toEqual({ monthly_limit: 44, hard_stop: false, spent_this_month: 22, alerts_sent: [50, 80, 100] });
    expect(await searchTimes(key, 2)).toEqual([200, 200]);
    await settle();
    expect(fullMails()).toHaveLength(1);
    // Raised once more and crossed a third time: still the one mail.
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 55, hard_stop: false })).statusCode).toBe(200);
    expect(await searchTimes(key, 1)).toEqual([200]); // ¥55
    await settle();
    expect(fullMails()).toHaveLength(1);
    expect(alertMails(user.email)).toHaveLength(1);
    expect(await ctx.query('SELECT threshold_pct FROM budget_alerts ba JOIN billing_accounts b ON b.id = ba.billing_account_id WHERE b.user_id = $1 ORDER BY 1', [user.id])).toEqual([
      { threshold_pct: 50 },
      { threshold_pct: 80 },
      { threshold_pct: 100 },
    ]);

    // The next month: this month's searches and alerts become last month's, and crossing 100 % mails again.
    await ctx.query("UPDATE usage_events SET occurred_at = occurred_at - interval '1 month' WHERE user_id = $1", [user.id]);
    await ctx.query("UPDATE usage_daily SET day = (day - interval '1 month')::date WHERE user_id = $1", [user.id]);
    for (const table of ['usage_charge_monthly', 'usage_user_monthly']) {
      await ctx.query(`UPDATE ${table} SET year_month = to_char(to_date(year_month || '-01', 'YYYY-MM-DD') - interval '1 month', 'YYYY-MM') WHERE user_id = $1`, [user.id]);
    }
    await ctx.query("UPDATE budget_alerts SET year_month = to_char(to_date(year_month || '-01', 'YYYY-MM-DD') - interval '1 month', 'YYYY-MM') WHERE billing_account_id = (SELECT id FROM billing_accounts WHERE user_id = $1)", [user.id]);
    const nextMonth = await api('POST', '/billing/budget', user, { monthly_limit: 55, hard_stop: true });
    expect(nextMonth.json().data).toEqual({ monthly_limit: 55, hard_stop: true, spent_this_month: 0, alerts_sent: [] });
    expect(await searchTimes(key, 6)).toEqual([200, 200, 200, 200, 200, 402]);
    await ctx.app.usageMeter.flush();
    await waitForMails(user.email, 2);
    expect(fullMails()).toHaveLength(2);
  });

  it('mails each alert (50, 80, 100 %) once, searches going on past 100 % without a hard stop, even after a restart', async () => {
    const user = await ctx.newUser('individual');
    const key = await newKey(user);
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 110, hard_stop: false })).statusCode).toBe(200);

    const step = async (n: number, expected: number[]) => {
      expect(await searchTimes(key, n)).toEqual(Array(n).fill(200));
      await ctx.app.usageMeter.flush();
      await waitForMails(user.email, expected.length);
      expect(alertMails(user.email).map((m) => m.subject)).toEqual(
        expected.map((pct) => (pct === 100 ? '【POI Cloud】今月のご利用額が予算の上限に達しました' : `【POI Cloud】今月のご利用額が予算の${pct}%に達しました`)),
      );
    };
    await step(4, []); // ¥44
    await step(1, [50]); // ¥55
    await step(2, [50]); // ¥77
    await step(1, [50, 80]); // ¥88
    await step(2, [50, 80, 100]); // ¥110
    await step(3, [50, 80, 100]); // ¥143: past the limit, still served
    const last = alertMails(user.email).at(-1)!;
    expect(last.text).toContain('今月のご利用額(税込): ¥110');
    expect(last.text).toContain('月間予算: ¥110');
    expect(last.text).toContain('http://console.test/billing');
    expect((await api('GET', '/billing/budget', user)).json().data).toEqual({ monthly_limit: 110, hard_stop: false, spent_this_month: 143, alerts_sent: [50, 80, 100] });
    expect((await ctx.query('SELECT threshold_pct FROM budget_alerts ba JOIN billing_accounts b ON b.id = ba.billing_account_id WHERE b.user_id = $1', [user.id])).length).toBe(3);

    // Each threshold is mailed once a month whatever the budget does: raising it (¥143 of ¥220 =
    // 65 %) re-arms nothing, reaching 80 % of the new one sends nothing, nor does lowering it again.
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 220, hard_stop: false })).json().data.alerts_sent).toEqual([50, 80, 100]);
    await step(3, [50, 80, 100]); // ¥176 = 80 % of ¥220
    expect((await api('POST', '/billing/budget', user, { monthly_limit: 110, hard_stop: false })).json().data.alerts_sent).toEqual([50, 80, 100]);
    await ctx.app.usageMeter.flush();
    await new Promise((r) => setTimeout(r, 300));
    expect(alertMails(user.email)).toHaveLength(3);

    // A new instance (a restart) loads what was sent and sends nothing again.
    await ctx.app.close();
    const restarted = await buildApp(ctx.app.config, { database: ctx.database });
    try {
      await restarted.ready();
      expect(await searchTimes(key, 2, restarted)).toEqual([200, 200]);
      await restarted.usageMeter.flush();
      await new Promise((r) => setTimeout(r, 300));
      expect(alertMails(user.email)).toHaveLength(3);
      expect((await api('GET', '/billing/budget', user, undefined, restarted)).json().data).toEqual({ monthly_limit: 110, hard_stop: false, spent_this_month: 198, alerts_sent: [50, 80, 100] });
    } finally {
      await restarted.close();
    }
  });
});
