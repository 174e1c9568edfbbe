import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { dayOf, startOfDay, yearMonthOf } from '@poi/shared/billing-time';
import { previousYearMonth } from '../src/modules/invoices/charges';
import { PLATFORM_RECIPIENT } from '../src/db/schema/usage';
import { adminPricingMessages } from '../src/modules/pricing/admin-pricing.service';
import { writeUsageEvents, type UsageEvent } from '../src/modules/usage/usage.repository';
import { withTestContext, type Actor, type TestContext } from './helpers';
import { instantsOverMonth, usageEvent } from './support/usage-events';

/*
 * Admin pricing versions and revenue views: never retroactive, changed only before
 * they start, at-date right at each boundary, one audit row per change; revenue figures equal a
 * hand computation, the month's invoices and each provider's own /revenue report; the dashboard.
 */

let ctx: TestContext;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const addDays = (day: string, n: number) => new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)) + n)).toISOString().slice(0, 10);
const today = () => dayOf(new Date());
const version = (over: Record<string, unknown> = {}) => ({
  account_type: 'individual',
  effective_from: addDays(today(), 1),
  base_fee: 0.2,
  free_searches_per_month: 500,
  monthly_fee: 1000,
  provider_share_percent: 75.5,
  rate_limit_per_minute: 300,
  max_api_keys: 5,
  reason: '価格改定',
  ...over,
});
const auditCount = async (targetType: string, targetId: string) =>
  Number((await ctx.query<{ n: string }>('SELECT count(*) AS n FROM audit_logs WHERE target_type = $1 AND target_id = $2', [targetType, targetId]))[0]!.n);

withTestContext({}, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

describe('admin pricing', () => {
  it('answers 401 unsigned and 403 to non-admins', async () => {
    const user = await ctx.newUser('data_provider', 'pricing-user', '準備');
    for (const [method, url, payload] of [
      ['GET', '/admin/pricing/current'],
      ['GET', '/admin/pricing/history'],
      ['GET', '/admin/pricing/at-date?account_type=trial'],
      ['POST', '/admin/pricing/preview', version()],
      ['POST', '/admin/pricing/create', version()],
      ['POST', '/admin/pricing/update/1', version()],
      ['POST', '/admin/pricing/delete/1', { reason: 'x' }],
    ] as Array<['GET' | 'POST', string, Record<string, unknown>?]>) {
      expect((await api(method, url, undefined, payload)).statusCode, url).toBe(401);
      expect((await api(method, url, user, payload)).statusCode, url).toBe(403);
    }
  });

  it('creates versions from tomorrow (Japan time) only, validating every bound', async () => {
    for (const day of [today(), addDays(today(), -1), '2020-01-01']) {
      const res = await api('POST', '/admin/pricing/create', admin, version({ effective_from: day }));
      expect(res.statusCode, day).toBe(400);
      expect(res.json().error.message).toBe(adminPricingMessages.notFuture);
    }
    for (const [field, value, message] of [
      ['base_fee', 1000.01, '基本料金'],
      ['base_fee', -1, '基本料金'],
      ['base_fee', 0.001, '基本料金'],
      ['free_searches_per_month', 1.5, '月間無料検索数'],
      ['monthly_fee', -5, '月額料金'],
      ['provider_share_percent', 100.5, '分配率'],
      ['rate_limit_per_minute', 0, 'レート制限'],
      ['max_api_keys', 1001, 'APIキーの上限'],
      ['effective_from', '2026-02-30', '適用開始日'],
      ['reason', ' ', '理由'],
    ] as const) {
      const res = await api('POST', '/admin/pricing/create', admin, version({ [field]: value, effective_from: field === 'effective_from' ? value : addDays(today(), 40) }));
      expect(res.statusCode, `${field}=${value}`).toBe(400);
      expect(res.body, field).toContain(message);
    }
    expect(Number((await ctx.query<{ n: string }>("SELECT count(*) AS n FROM audit_logs WHERE target_type = 'pricing_version'"))[0]!.n)).toBe(0);
    const created = await api('POST', '/admin/pricing/create', admin, version());
    expect(created.statusCode, created.body).toBe(200);
    const v = created.json().data.version;
    expect(v).toMatchObject({ account_type: 'individual', base_fee: 0.2, monthly_fee: 1000, provider_share_percent: 75.5, max_api_keys: 5 });
    expect(new Date(v.effective_from).getTime()).toBe(startOfDay(addDays(today(), 1)).getTime());
    expect(await auditCount('pricing_version', String(v.id))).toBe(1);
    expect((await api('POST', '/admin/pricing/create', admin, version())).statusCode).toBe(409);
  });

  it('answers the version in force at each boundary (00:00 Japan time)', async () => {
    const day = addDays(today(), 3);
    const created = (await api('POST', '/admin/pricing/create', admin, version({ account_type: 'corporate', effective_from: day, base_fee: 0.03 }))).json().data.version;
    const start = startOfDay(day);
    const at = async (date: string) => (await api('GET', `/admin/pricing/at-date?account_type=corporate&date=${encodeURIComponent(date)}`, admin)).json().data.version;
    expect((await at(new Date(start.getTime() - 1).toISOString())).id).not.toBe(created.id);
    expect((await at(start.toISOString())).id).toBe(created.id);
    expect((await at(day)).id).toBe(created.id);
    expect((await at(addDays(day, -1))).id).not.toBe(created.id);
    expect((await at('2020-01-01')).account_type).toBe('corporate');
    expect((await api('GET', '/admin/pricing/at-date?account_type=corporate&date=2019-12-31', admin)).statusCode).toBe(404);
    // Current is still the old one; history lists both.
    const current = (await api('GET', '/admin/pricing/current', admin)).json().data.versions;
    expect(current.find((x: { account_type: string }) => x.account_type === 'corporate').id).not.toBe(created.id);
    expect((await api('GET', '/admin/pricing/history', admin)).json().data.versions.map((x: { id: number }) => x.id)).toContain(created.id);
  });

  it('previews the change against the version before it and whom it reaches', async () => {
    await ctx.newUser('data_provider', 'preview', '準備');
    const res = await api('POST', '/admin/pricing/preview', admin, version({ account_type: 'data_provider', effective_from: addDays(today(), 10), base_fee: 0.1, max_api_keys: 20 }));
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().data;
    expect(p.previous).toMatchObject({ account_type: 'data_provider', base_fee: 0.1 });
    expect(p.changes.map((c: { field: string }) => c.field)).not.toContain('base_fee');
    expect(p.changes).toContainEqual({ field: 'max_api_keys', from: 10, to: 20 });
    expect(p.affected_users).toBeGreaterThanOrEqual(1);
    expect(Number((await ctx.query<{ n: string }>("SELECT count(*) AS n FROM pricing_versions WHERE account_type = 'data_provider'"))[0]!.n)).toBe(1);
  });

  it('updates and deletes only versions not yet in force, each with one audit row', async () => {
    const v = (await api('POST', '/admin/pricing/create', admin, version({ account_type: 'trial', effective_from: addDays(today(), 5) }))).json().data.version;
    const updated = await api('POST', `/admin/pricing/update/${v.id}`, admin, { ...version({ effective_from: addDays(today(), 6), base_fee: 0.5 }), account_type: undefined });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data.version).toMatchObject({ id: v.id, base_fee: 0.5, account_type: 'trial' });
    expect((await api('POST', `/admin/pricing/update/${v.id}`, admin, { ...version({ effective_from: today() }), account_type: undefined })).statusCode).toBe(400);
    const inForce = (await ctx.query<{ id: string }>("SELECT id FROM pricing_versions WHERE account_type = 'trial' AND effective_from < now()"))[0]!.id;
    const refused = await api('POST', `/admin/pricing/update/${inForce}`, admin, { ...version(), account_type: undefined });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(adminPricingMessages.inForce);
    expect((await api('POST', `/admin/pricing/delete/${inForce}`, admin, { reason: '誤り' })).statusCode).toBe(409);
    expect(await auditCount('pricing_version', inForce)).toBe(0);
    expect((await api('POST', `/admin/pricing/delete/${v.id}`, admin, {})).statusCode).toBe(400);
    expect((await api('POST', `/admin/pricing/delete/${v.id}`, admin, { reason: '取りやめ' })).statusCode).toBe(200);
    expect((await api('POST', `/admin/pricing/delete/${v.id}`, admin, { reason: '再度' })).statusCode).toBe(404);
    const audit = await ctx.query<{ action: string }>("SELECT action FROM audit_logs WHERE target_type = 'pricing_version' AND target_id = $1 ORDER BY id", [String(v.id)]);
    expect(audit.map((a) => a.action)).toEqual(['pricing_version.created', 'pricing_version.updated', 'pricing_version.deleted']);
  });
});

describe('admin revenue', () => {
  // Last month: closable now, and inside the dashboard's and the provider detail's 12 months.
  const month = previousYearMonth(yearMonthOf(new Date()));
  let provider: Actor;
  let consumerA: Actor;
  let consumerB: Actor;
  let providerDataset: string;
  let platformDataset: string;

  /** Searches as the meter records them, spread over the month. */
  function events(userId: string, n: number, datasets: Array<[id: string, priceSen: number, recipient: string]>, baseFeeSen = 10): UsageEvent[] {
    return instantsOverMonth(month, n).map((occurredAt) =>
      usageEvent(userId, occurredAt, {
        datasetIds: datasets.map((d) => d[0]),
        datasetPricesSen: datasets.map((d) => d[1]),
        datasetSharesBp: datasets.map(() => 7000),
        datasetRecipientIds: datasets.map((d) => d[2]),
        baseFeeSen,
        amountSen: datasets.reduce((s, d) => s + d[1], 0) + baseFeeSen,
      }),
    );
  }

  beforeAll(async () => {
    provider = await ctx.newUser('data_provider', 'earner', '準備');
    consumerA = await ctx.newUser('individual', 'consumer-a', '準備');
    consumerB = await ctx.newUser('individual', 'consumer-b', '準備');
    providerDataset = (await api('POST', '/datasets/public/create', provider, { name: '提供者の店舗', price_per_search: 1.33 })).json().data.dataset_id;
    platformDataset = (await api('POST', '/admin/datasets/assign', admin, { name: '公式データ', price_per_search: 0.5, assigned_user_id: null, provider_user_id: null })).json().data.dataset_id;
    // A: 301 searches of both datasets; B: 77 of the provider's only.
    await writeUsageEvents(ctx.database.db, events(consumerA.id, 301, [[providerDataset, 133, provider.id], [platformDataset, 50, PLATFORM_RECIPIENT]]));
    await writeUsageEvents(ctx.database.db, events(consumerB.id, 77, [[providerDataset, 133, provider.id]]));
    const close = await api('POST', '/admin/billing/close', admin, { year_month: month });
    expect(close.statusCode, close.body).toBe(200);
  });

  it('answers figures that equal the invoices and a hand computation', async () => {
    const res = await api('GET', `/admin/platform/revenue?year_month=${month}`, admin);
    expect(res.statusCode, res.body).toBe(200);
    const { figures, datasets } = res.json().data;
    const invoices = await ctx.query<{ subtotal_yen: string; tax_yen: string; total_yen: string }>(
      `SELECT subtotal_yen, tax_yen, total_yen FROM invoices i JOIN billing_accounts b ON b.id = i.billing_account_id WHERE i.year_month = $1 AND b.user_id = ANY($2)`,
      [month, [consumerA.id, consumerB.id]],
    );
    expect(invoices).toHaveLength(2);
    const sum = (k: 'subtotal_yen' | 'tax_yen' | 'total_yen') => invoices.reduce((n, i) => n + Number(i[k]), 0);
    expect(figures).toMatchObject({ year_month: month, invoices: 2, billed: sum('subtotal_yen'), tax: sum('tax_yen'), total: sum('total_yen'), collected: 0 });
    // By hand: A = ⌊301 × 1.33⌋ + ⌊301 × 0.50⌋ + ⌊301 × 0.10⌋ = 400 + 150 + 30 = 580; B = ⌊77 × 1.33⌋ + ⌊77 × 0.10⌋ = 102 + 7 = 109.
    expect(figures.billed).toBe(689);
    expect(figures.tax).toBe(58 + 10);
    // Provider: 378 searches × 1.33 × 70 % = 351.918 → 351.91 (floored to the sen).
    expect(figures.provider_share).toBe(351.91);
    expect(figures.platform_net).toBe(337.09);
    expect(figures.outstanding).toBe(figures.total);
    const byId = Object.fromEntries(datasets.map((d: { dataset_id: string }) => [d.dataset_id, d]));
    expect(byId[providerDataset]).toMatchObject({ searches: 378, billed: 400 + 102, provider_share: 351.91, provider_id: provider.id });
    expect(byId[platformDataset]).toMatchObject({ searches: 301, billed: 150, provider_share: 0, provider_id: null });
  });

  it("each provider's figure equals their own /revenue report", async () => {
    const res = await api('GET', `/admin/data-providers/revenue?year_month=${month}`, admin);
    expect(res.statusCode, res.body).toBe(200);
    const row = res.json().data.providers.find((p: { provider_id: string }) => p.provider_id === provider.id);
    const own = (await api('GET', `/datasets/revenue/monthly?year_month=${month}`, provider)).json().data;
    expect(row).toMatchObject({ searches: 378, gross: 502.74, share: own.total_revenue, payable: own.total_revenue });
    expect(own.total_revenue).toBe(351.91);
    const detail = await api('GET', `/admin/data-providers/${provider.id}/revenue-detail`, admin);
    expect(detail.statusCode).toBe(200);
    const feb = detail.json().data.months.find((m: { year_month: string }) => m.year_month === month);
    expect(feb).toMatchObject({ searches: 378, revenue: 351.91 });
    expect((await api('GET', `/admin/data-providers/${randomUUID()}/revenue-detail`, admin)).statusCode).toBe(404);
    const platform = (await api('GET', `/admin/datasets/revenue/platform?year_month=${month}`, admin)).json().data;
    expect(platform.datasets.find((d: { dataset_id: string }) => d.dataset_id === platformDataset)).toMatchObject({ searches: 301, revenue: 150.5 });
  });

  it('downloads the revenue tables as CSV and refuses a malformed month', async () => {
    const csv = await api('GET', `/admin/data-providers/revenue.csv?year_month=${month}`, admin);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.startsWith('\uFEFF提供者ID,')).toBe(true);
    expect(csv.body).toContain(`${provider.id},${provider.email}`);
    const platform = await api('GET', `/admin/platform/revenue.csv?year_month=${month}`, admin);
    expect(platform.body.split('\r\n').filter(Boolean)).toHaveLength(1 + 2);
    for (const bad of ['2026-13', '2026-2', 'abc', '']) {
      const res = await api('GET', `/admin/platform/revenue?year_month=${bad}`, admin);
      expect(res.statusCode, bad).toBe(400);
      expect(res.body).toContain('YYYY-MM');
    }
  });

  it('the dashboard shows the month, pending work, recent audit entries and configuration warnings', async () => {
    const res = await api('GET', '/admin/dashboard', admin);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d.months).toHaveLength(12);
    const feb = d.months.find((m: { year_month: string }) => m.year_month === month);
    const platform = (await api('GET', `/admin/platform/revenue?year_month=${month}`, admin)).json().data.figures;
    expect(feb).toEqual(platform);
    expect(d.pending_transfers).toBeGreaterThanOrEqual(0);
    expect(d.recent_audit.length).toBeGreaterThan(0);
    expect(d.warnings.join('\n')).toContain('ISSUER_NAME');
    expect(d.warnings.join('\n')).toContain('STRIPE_SECRET_KEY');
    expect((await api('GET', '/admin/dashboard', provider)).statusCode).toBe(403);
  });
});
