import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dayOf, yearMonthOf } from '@poi/shared/billing-time';
import { withTestContext, type Actor, type TestContext } from './helpers';

/* The user's billing calls (account, this month so far, invoices, CSV, detail) and the admin close. */

let ctx: TestContext;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

async function accountIdOf(who: Actor): Promise<string> {
  return (await api('GET', '/billing/account', who)).json().data.account.id;
}

/** Issued invoices inserted as they are stored, for the list, filters and CSV. */
async function seedInvoices(accountId: string, n: number, from = 1): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const subtotal = i * 100;
    const day = `2024-${String(((i - 1) % 12) + 1).padStart(2, '0')}-${String(((i - 1) % 28) + 1).padStart(2, '0')}`;
    await ctx.query(
      `INSERT INTO invoices (billing_account_id, year_month, number, status, period_start, period_end, issue_date, due_date, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
       VALUES ($1, $2, $3, 'issued', $4, $4, $4, $4, $5, $6, $7, 'card', '{"name":"POI Cloud"}', '{"addressee":"山田 太郎","honorific":"様","customer_number":"1234567"}')`,
      [accountId, `${1900 + i}-01`, `POI-TEST${accountId.slice(0, 4)}-${String(i).padStart(6, '0')}`, day, subtotal, subtotal / 10, subtotal + subtotal / 10],
    );
  }
}

withTestContext({ BILLING_JOBS: 'off', ISSUER_REGISTRATION_NUMBER: 'T1234567890123', BANK_NAME: 'テスト銀行', BANK_BRANCH: '本店', BANK_ACCOUNT_NUMBER: '1234567', BANK_ACCOUNT_HOLDER: 'ポイクラウド' }, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

describe('billing calls: who may call what', () => {
  it('answers 401 without a session on every call', async () => {
    const id = randomUUID();
    for (const [method, url] of [
      ['GET', '/billing/account'],
      ['POST', '/billing/account'],
      ['GET', '/billing/current'],
      ['GET', '/billing/invoices'],
      ['GET', '/billing/invoices.csv'],
      ['GET', `/billing/invoices/${id}`],
      ['POST', '/admin/billing/close'],
    ] as const) {
      const res = await api(method, url, undefined, method === 'POST' ? {} : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('shows a trial user no account, no invoices, and this month at zero', async () => {
    const trial = await ctx.newUser('trial');
    const view = (await api('GET', '/billing/account', trial)).json().data;
    expect(view).toEqual({ account_type: 'trial', account: null, card_payments_available: false, has_open_invoice: false });
    expect((await api('GET', '/billing/invoices', trial)).json().data).toEqual({ invoices: [], total: 0 });
    const current = (await api('GET', '/billing/current', trial)).json().data;
    expect(current).toMatchObject({ subtotal: 0, tax_estimate: 0, total_estimate: 0, monthly_fee: 0, datasets: [] });
    const csv = await api('GET', '/billing/invoices.csv', trial);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(1);
  });

  it("never shows someone else's invoice (404), refuses a malformed id in Japanese (400), lets an admin read any", async () => {
    const owner = await ctx.newUser('individual');
    const other = await ctx.newUser('individual');
    const accountId = await accountIdOf(owner);
    await seedInvoices(accountId, 1);
    const [first] = await ctx.query<{ id: string }>('SELECT id FROM invoices WHERE billing_account_id = $1', [accountId]);
    const id = first!.id;
    expect((await api('GET', `/billing/invoices/${id}`, owner)).statusCode).toBe(200);
    const stranger = await api('GET', `/billing/invoices/${id}`, other);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json().error.message).toBe('請求書が見つかりません');
    expect((await api('GET', `/billing/invoices/${randomUUID()}`, owner)).statusCode).toBe(404);
    const bad = await api('GET', '/billing/invoices/not-a-uuid', owner);
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('請求書IDの形式が正しくありません');
    expect((await api('GET', `/billing/invoices/${id}`, admin)).statusCode).toBe(200);
    expect((await api('GET', '/billing/invoices', other)).json().data.total).toBe(0);
  });

  it('keeps invoices and billing details from corporate members without the owner or billing role (403)', async () => {
    const member = await ctx.newUser('individual');
    const [corp] = await ctx.query<{ id: string }>(
      `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method)
       VALUES ('active', '株式会社権限', 'カブシキガイシャケンゲン', '100-0001', '東京都', '03-0000-0000', '経理', ARRAY['b@corp.example.com'], 'bank_transfer') RETURNING id`,
    );
    await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = 'member' WHERE id = $2`, [corp!.id, member.id]);
    const view = (await api('GET', '/billing/account', member)).json().data;
    expect(view.account).toMatchObject({ kind: 'corporate', honorific: '御中', payment_method: 'bank_transfer' });
    expect(view.account.bank_transfer).toMatchObject({ bank_name: 'テスト銀行', customer_number: view.account.customer_number });
    expect(view.account.bank_transfer.notes.join()).toContain('振込手数料はお客様ご負担');
    expect((await api('GET', '/billing/invoices', member)).statusCode).toBe(403);
    expect((await api('POST', '/billing/account', member, { addressee: 'x', honorific: '様', postal_code: null, address: null, billing_emails: ['a@example.com'] })).statusCode).toBe(403);
  });

  it('runs the admin close only for admins and only for a past month', async () => {
    const user = await ctx.newUser('individual');
    expect((await api('POST', '/admin/billing/close', user, { year_month: '2026-01' })).statusCode).toBe(403);
    const current = yearMonthOf(new Date());
    for (const ym of [current, '2999-01']) {
      const res = await api('POST', '/admin/billing/close', admin, { year_month: ym });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toContain('前月以前');
    }
    const bad = await api('POST', '/admin/billing/close', admin, { year_month: '2026-13' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('YYYY-MM');
    const ok = await api('POST', '/admin/billing/close', admin, { year_month: '2025-01' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toEqual({ year_month: '2025-01', issued: 0, skipped: 0 });
    const audit = await ctx.query<{ actor_id: string }>(`SELECT actor_id FROM audit_logs WHERE action = 'billing.month_closed' AND target_id = '2025-01'`);
    expect(audit.map((a) => a.actor_id)).toEqual([admin.id]);
  });
});

describe('billing account details', () => {
  it('validates, saves for future invoices only, and audits the change', async () => {
    const user = await ctx.newUser('individual');
    const accountId = await accountIdOf(user);
    await seedInvoices(accountId, 1);
    const invalid = await api('POST', '/billing/account', user, { addressee: '', honorific: '殿', postal_code: '1', address: null, billing_emails: [] });
    expect(invalid.statusCode).toBe(400);
    const res = await api('POST', '/billing/account', user, {
      addressee: '山田商店',
      honorific: '御中',
      postal_code: '1500001',
      address: '東京都渋谷区',
      billing_emails: ['Keiri@Example.com'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.account).toMatchObject({ addressee: '山田商店', honorific: '御中', postal_code: '150-0001', billing_emails: ['keiri@example.com'] });
    const [old] = (await api('GET', '/billing/invoices', user)).json().data.invoices;
    expect(old.addressee).toBe('山田 太郎');
    const audit = await ctx.query<{ after: { addressee: string } }>(`SELECT after FROM audit_logs WHERE action = 'billing_account.details_updated' AND target_id = $1`, [accountId]);
    expect(audit[0]!.after.addressee).toBe('山田商店');
  });
});

describe('invoice list and CSV', () => {
  it('filters (combined), pages with an exact total, orders by issue date then number, and the CSV has every row past 100', async () => {
    const user = await ctx.newUser('individual');
    const accountId = await accountIdOf(user);
    await seedInvoices(accountId, 130);
    // A draft (a carried amount) is not an invoice yet.
    await ctx.query(
      `INSERT INTO invoices (billing_account_id, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
       VALUES ($1, '2099-01', 'draft', '2099-01-01', '2099-01-31', 10, 1, 11, 'card', '{}', '{}')`,
      [accountId],
    );
    const page = (await api('GET', '/billing/invoices?limit=100&offset=0', user)).json().data;
    expect(page.total).toBe(130);
    expect(page.invoices).toHaveLength(100);
    const keys = page.invoices.map((i: { issue_date: string; number: string }) => `${i.issue_date}|${i.number}`);
    expect(keys).toEqual([...keys].sort().reverse());
    const next = (await api('GET', '/billing/invoices?limit=100&offset=100', user)).json().data;
    expect(next.invoices).toHaveLength(30);
    const filtered = (await api('GET', '/billing/invoices?issued_from=2024-03-01&issued_to=2024-06-30&amount_min=2000&amount_max=9000', user)).json().data;
    for (const i of filtered.invoices) {
      expect(i.issue_date >= '2024-03-01' && i.issue_date <= '2024-06-30').toBe(true);
      expect(i.total >= 2000 && i.total <= 9000).toBe(true);
    }
    expect(filtered.total).toBeGreaterThan(0);
    expect(filtered.total).toBeLessThan(130);
    const empty = (await api('GET', '/billing/invoices?issued_from=', user)).json().data;
    expect(empty.total).toBe(130);
    expect((await api('GET', '/billing/invoices?amount_min=-1', user)).statusCode).toBe(400);

    const csv = await api('GET', '/billing/invoices.csv', user);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.startsWith('\uFEFF請求書番号,対象年月,発行日,支払期限,宛名,小計(円),消費税(円),合計(円)')).toBe(true);
    const rows = csv.body.slice(1).split('\r\n').filter(Boolean);
    expect(rows).toHaveLength(131);
    expect(rows[1]).toMatch(/^POI-TEST[^,]+,\d{4}-\d{2},\d{4}-\d{2}-\d{2},\d{4}-\d{2}-\d{2},山田 太郎,\d+,\d+,\d+,0,0,0,\d+,クレジットカード,発行済$/);
    const filteredCsv = await api('GET', '/billing/invoices.csv?issued_from=2024-03-01&issued_to=2024-06-30&amount_min=2000&amount_max=9000', user);
    expect(filteredCsv.body.slice(1).split('\r\n').filter(Boolean)).toHaveLength(filtered.total + 1);
  });
});

describe('this month so far', () => {
  it('equals the invoice the close then issues for the same searches through the public API', async () => {
    const user = await ctx.newUser('individual');
    const ds = await api('POST', '/admin/datasets/assign', admin, { name: '今月テスト', price_per_search: 12.34, assigned_user_id: null, provider_user_id: null });
    const datasetId = ds.json().data.dataset_id;
    const key = (await api('POST', '/api-keys', user, { name: '請求' })).json().data.key;
    for (let i = 0; i < 7; i++) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${datasetId}`, headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, res.body).toBe(200);
    }
    await ctx.app.usageMeter.flush();
    const current = (await api('GET', '/billing/current', user)).json().data;
    expect(current.year_month).toBe(yearMonthOf(new Date()));
    expect(current.datasets).toEqual([{ dataset_id: datasetId, dataset_name: '今月テスト', searches: 7, unit_price: 12.34, amount: 86 }]); // 8,638 sen
    expect(current.free_searches).toMatchObject({ limit: 1000, used: 7 });
    expect(current.base_fee).toMatchObject({ searches: 0, amount: 0 });
    expect(current).toMatchObject({ subtotal: 86, tax_estimate: 8, total_estimate: 94 });
    // Closing the month (the job would do it on the 1st) issues exactly that.
    await ctx.app.billingClose.service.closeMonth(current.year_month);
    const list = (await api('GET', '/billing/invoices', user)).json().data;
    expect(list.total).toBe(1);
    const detail = (await api('GET', `/billing/invoices/${list.invoices[0].id}`, user)).json().data;
    expect(detail).toMatchObject({ subtotal: current.subtotal, tax: current.tax_estimate, total: current.total_estimate, issue_date: dayOf(new Date()), status: 'issued' });
    expect(detail.lines).toEqual([{ kind: 'dataset', dataset_id: datasetId, description: 'データセット検索料「今月テスト」', quantity: 7, unit_price: 12.34, amount: 86, tax_rate_percent: 10 }]);
    expect(detail.issuer.registration_number).toBe('T1234567890123');
    expect(detail.recipient).toMatchObject({ addressee: user.email, honorific: '様' });
    expect(detail.payments).toEqual([]);
    expect((await api('GET', '/billing/account', user)).json().data.has_open_invoice).toBe(true);
  });
});
