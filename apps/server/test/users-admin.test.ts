import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yearMonthOf } from '@poi/shared/billing-time';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { LAST_ADMIN_MESSAGE } from '../src/modules/users/admin-users.service';
import { openDatabase } from '../src/db/client';
import { bearer, createTestContext, type Actor, type TestContext } from './helpers';

/*
 * Admin calls on users and the audit log: every call for every role, the list's
 * search, filters, orders and paging past 100 rows with ties, the CSV equal to the list, the
 * detail, reasons, the last active admin, suspension stopping sessions and keys, one audit row
 * per change.
 */

let ctx: TestContext;
let admin: Actor;
let provider: Actor;
let trial: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const auditCount = async (targetId: string) => Number((await ctx.query<{ n: string }>('SELECT count(*) AS n FROM audit_logs WHERE target_id = $1', [targetId]))[0]!.n);

// 250 users of a batch of their own (a mark in the e-mail), many created in the same second and
// with the same display name, so orders need their id tie-breaker.
const MARK = `bulk${Date.now().toString(36)}`;
const BULK = 250;

beforeAll(async () => {
  ctx = await createTestContext();
  admin = await ctx.admin();
  provider = await ctx.newUser('data_provider', 'provider', '準備');
  trial = await ctx.newUser('trial', 'trial');
  await ctx.query(
    `INSERT INTO users (email, display_name, account_type, status, created_at, last_login_at)
     SELECT '${MARK}-' || n || '@example.com',
            CASE WHEN n % 3 = 0 THEN NULL ELSE '山田 ' || (n % 7) END,
            (ARRAY['trial', 'individual', 'corporate', 'data_provider'])[1 + n % 4],
            CASE WHEN n % 10 = 0 THEN 'suspended' ELSE 'active' END,
            timestamptz '2025-03-31 15:00:00+00' + make_interval(secs => (n % 5) * 3600),
            CASE WHEN n % 2 = 0 THEN timestamptz '2026-01-01 00:00:00+00' END
     FROM generate_series(1, ${BULK}) AS n`,
  );
  // A billing account each for some: card for n ≡ 1 (mod 4), bank transfer for n ≡ 2 (mod 4).
  await ctx.query(
    `INSERT INTO billing_accounts (kind, user_id, customer_number, addressee, honorific, payment_method)
     SELECT 'individual', u.id, (1000000 + row_number() OVER ())::text, '宛名', '様', CASE WHEN n % 4 = 1 THEN 'card' ELSE 'bank_transfer' END
     FROM (SELECT id, split_part(split_part(email, '-', 2), '@', 1)::int AS n FROM users WHERE email LIKE '${MARK}-%') u
     WHERE u.n % 4 IN (1, 2)`,
  );
});

afterAll(async () => {
  await ctx?.close();
});

describe('admin users: roles', () => {
  it('answers 401 unsigned and 403 to every non-admin, on every call', async () => {
    const calls: Array<[method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>]> = [
      ['GET', '/admin/users'],
      ['GET', '/admin/users.csv'],
      ['GET', `/admin/users/${trial.id}`],
      ['POST', `/admin/users/${trial.id}/change-type`, { account_type: 'individual', reason: 'x' }],
      ['POST', `/admin/users/${trial.id}/suspend`, { reason: 'x' }],
      ['POST', `/admin/users/${trial.id}/activate`, { reason: 'x' }],
      ['GET', '/admin/audit-logs'],
    ];
    const individual = await ctx.newUser('individual', 'indiv', '準備');
    for (const [method, url, payload] of calls) {
      expect((await api(method, url, undefined, payload)).statusCode, url).toBe(401);
      for (const who of [trial, provider, individual]) expect((await api(method, url, who, payload)).statusCode, url).toBe(403);
    }
    expect(await auditCount(trial.id)).toBe(0);
  });
});

describe('admin users: list', () => {
  const marked = `q=${MARK}`;
  type Listed = { id: string; email: string; display_name: string | null; created_at: string; status: string; payment_method: string | null; account_type: string };
  const list = async (query: string) => {
    const res = await api('GET', `/admin/users?${query}`, admin);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { users: Listed[]; total: number };
  };
  async function walk(query: string, limit = 100) {
    const seen: Listed[] = [];
    const totals = new Set<number>();
    for (let offset = 0; ; offset += limit) {
      const page = await list(`${query}&limit=${limit}&offset=${offset}`);
      totals.add(page.total);
      seen.push(...page.users);
      if (page.users.length < limit) break;
    }
    return { seen, totals };
  }

  it('walks every matching user exactly once in each order, with one exact total on every page', async () => {
    for (const sort of ['created_at', 'email', 'display_name', 'last_login_at']) {
      for (const order of ['asc', 'desc']) {
        const { seen, totals } = await walk(`${marked}&sort=${sort}&order=${order}`);
        expect([...totals], `${sort} ${order}`).toEqual([BULK]);
        expect(new Set(seen.map((u) => u.id)).size, `${sort} ${order}`).toBe(BULK);
      }
    }
    // Ties on created_at (five distinct instants for 250 users) are ordered by id.
    const { seen } = await walk(`${marked}&sort=created_at&order=asc`, 37);
    const keys = seen.map((u) => `${u.created_at}|${u.id}`);
    expect(keys).toEqual([...keys].sort());
  });

  it('filters by type, role, status, payment method and a Japan-time creation range, combined', async () => {
    const byType = await list(`${marked}&account_type=corporate&limit=100`);
    expect(byType.total).toBe(63);
    expect(byType.users.every((u) => u.account_type === 'corporate')).toBe(true);
    expect((await list(`${marked}&status=suspended`)).total).toBe(25);
    expect((await list(`${marked}&role=admin`)).total).toBe(0);
    expect((await list('role=admin')).users.map((u) => u.email)).toContain('admin@example.com');
    const card = await list(`${marked}&payment_method=card&limit=100`);
    expect(card.total).toBe(63);
    expect(card.users.every((u) => u.payment_method === 'card')).toBe(true);
    expect((await list(`${marked}&payment_method=bank_transfer`)).total).toBe(63);
    expect((await list(`${marked}&payment_method=none`)).total).toBe(BULK - 126);
    // Created 2025-03-31 15:00Z (= 2025-04-01 00:00 JST) + 0..4 h: all on 2025-04-01 in Japan.
    expect((await list(`${marked}&created_from=2025-04-01&created_to=2025-04-01`)).total).toBe(BULK);
    expect((await list(`${marked}&created_to=2025-03-31`)).total).toBe(0);
    expect((await list(`${marked}&created_from=2025-04-02`)).total).toBe(0);
    expect((await list(`${marked}&account_type=individual&status=suspended&payment_method=card`)).total).toBe(
      // n ≡ 1 (mod 4) for individual and card, n ≡ 0 (mod 10) for suspended: never both.
      0,
    );
  });

  it('searches e-mail and display name folded (width and case) and finds a user by id', async () => {
    expect((await list(`q=${encodeURIComponent(MARK.toUpperCase())}`)).total).toBe(BULK);
    const fullWidth = [...`${MARK}-17@`].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
    expect((await list(`q=${encodeURIComponent(fullWidth)}`)).users.map((u) => u.email)).toEqual([`${MARK}-17@example.com`]);
    expect((await list(`q=${encodeURIComponent('山田 3')}`)).users.every((u) => u.display_name === '山田 3')).toBe(true);
    expect((await list(`q=${trial.id}`)).users.map((u) => u.id)).toEqual([trial.id]);
    expect((await list('q=%25')).total).toBe(0);
  });

  it('refuses malformed queries with a Japanese message naming the problem', async () => {
    for (const [query, message] of [
      ['sort=name', '並び順は'],
      ['order=up', '昇順・降順は'],
      ['status=frozen', '状態は'],
      ['payment_method=cash', '支払方法は'],
      ['limit=101', '件数は1〜100'],
      ['limit=', '件数は1〜100'],
      ['offset=-1', '開始位置は'],
      ['created_from=2025-02-30', '存在しない日付'],
      ['created_to=2025/01/01', 'YYYY-MM-DD'],
    ] as const) {
      const res = await api('GET', `/admin/users?${query}`, admin);
      expect(res.statusCode, query).toBe(400);
      expect(JSON.stringify(res.json().error), query).toContain(message);
    }
  });

  it('downloads the CSV of every matching row, in the list order', async () => {
    const res = await api('GET', `/admin/users.csv?${marked}&sort=email&order=asc&status=active`, admin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain("filename*=UTF-8''");
    expect(res.body.startsWith('\uFEFFユーザーID,メールアドレス')).toBe(true);
    const lines = res.body.trim().split('\r\n').slice(1);
    const { seen } = await walk(`${marked}&sort=email&order=asc&status=active`);
    expect(lines.length).toBe(225);
    expect(lines.map((l) => l.split(',')[0])).toEqual(seen.map((u) => u.id));
  });
});

describe('admin users: the dashboard\'s failed card payments link', () => {
  /** An issued card invoice of the user's own billing account, its last charge failed (or not). */
  async function cardInvoice(who: Actor, opts: { failed: boolean; status?: 'issued' | 'overdue' | 'paid' }): Promise<void> {
    const account = (await api('GET', '/billing/account', who)).json().data.account as { id: string };
    const [inv] = await ctx.query<{ id: string }>(
      `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
       VALUES ($1, 'correction', '2099-11', 'draft', '2099-11-01', '2099-11-30', 1000, 100, 1100, 'card', '{"name":"POI Cloud"}', '{"addressee":"宛名","honorific":"様"}') RETURNING id`,
      [account.id],
    );
    await ctx.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', 1000, 100, 1000)`, [inv!.id]);
    await ctx.query(
      `UPDATE invoices SET number = $2, status = $3, issue_date = '2026-01-01', due_date = '2099-12-31', issued_at = now(), last_payment_error = $4 WHERE id = $1`,
      [inv!.id, `POI-209911-${randomUUID().slice(0, 8)}`, opts.status ?? 'issued', opts.failed ? 'カードが拒否されました。' : null],
    );
  }

  it('card_failed=1 lists exactly the users the dashboard counts: n failures → n rows', async () => {
    const failing = [await ctx.newUser('individual', 'cardfail-a'), await ctx.newUser('individual', 'cardfail-b'), await ctx.newUser('individual', 'cardfail-c')];
    await cardInvoice(failing[0]!, { failed: true });
    await cardInvoice(failing[1]!, { failed: true, status: 'overdue' });
    await cardInvoice(failing[2]!, { failed: true });
    // Not failing: a paid invoice whose earlier attempt failed, and a card invoice still to be charged.
    const paid = await ctx.newUser('individual', 'cardfail-paid');
    await cardInvoice(paid, { failed: true, status: 'paid' });
    const fine = await ctx.newUser('individual', 'cardfail-fine');
    await cardInvoice(fine, { failed: false });
    // A corporate account's failed card invoice: its owner is the one to contact, not a member.
    const [owner, member] = [await ctx.newUser('individual', 'cardfail-owner'), await ctx.newUser('individual', 'cardfail-member')];
    const [corp] = await ctx.query<{ id: string }>(
      `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method)
       VALUES ('active', 'カード失敗株式会社', 'カードシッパイ', '100-0001', '東京都千代田区', '03-0000-0000', '担当', ARRAY['billing@example.jp'], 'card') RETURNING id`,
    );
    await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = CASE WHEN id = $2 THEN 'owner' ELSE 'member' END, account_type = 'corporate' WHERE id IN ($2, $3)`, [corp!.id, owner.id, member.id]);
    await cardInvoice(member, { failed: true });
    failing.push(owner);

    const dashboard = await api('GET', '/admin/dashboard', admin);
    expect(dashboard.statusCode, dashboard.body).toBe(200);
    const count: number = dashboard.json().data.failed_card_payments;
    const list = await api('GET', '/admin/users?card_failed=1&limit=100', admin);
    expect(list.statusCode, list.body).toBe(200);
    const rows = list.json().data.users as Array<{ id: string }>;
    expect(list.json().data.total).toBe(count);
    expect(rows).toHaveLength(count);
    const ids = rows.map((u) => u.id);
    for (const u of failing) expect(ids).toContain(u.id);
    expect(ids).not.toContain(paid.id);
    expect(ids).not.toContain(fine.id);
    expect(ids).not.toContain(member.id);
    expect(count).toBe(4);

    // The CSV follows the same filter; a bad value is refused in Japanese.
    const csv = await api('GET', '/admin/users.csv?card_failed=1', admin);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\n')).toHaveLength(1 + count);
    const bad = await api('GET', '/admin/users?card_failed=yes', admin);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('カード決済の失敗の絞り込みは 1 で指定してください');
  });
});

describe('admin users: detail and changes', () => {
  it('shows this month usage, keys, invoices and the audit trail of one user', async () => {
    const user = await ctx.newUser('individual', 'detail', '準備');
    const key = (await api('POST', '/api-keys', user, { name: '詳細テスト' })).json().data;
    const today = new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);
    await ctx.query('INSERT INTO usage_daily (user_id, day, api_key_id, searches, free_searches, amount_sen) VALUES ($1, $2, $3, 120, 20, 15050)', [user.id, today, key.api_key.id]);
    const res = await api('GET', `/admin/users/${user.id}`, admin);
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d.user).toMatchObject({ id: user.id, email: user.email, account_type: 'individual', status: 'active' });
    expect(d.usage_this_month).toEqual({ year_month: yearMonthOf(new Date()), searches: 120, free_searches: 20, amount: 150.5 });
    expect(d.api_keys).toHaveLength(1);
    expect(d.api_keys[0]).toMatchObject({ name: '詳細テスト', revoked_at: null });
    expect(JSON.stringify(d.api_keys)).not.toContain(key.key);
    expect(d.audit.map((a: { action: string }) => a.action)).toEqual(['user.change_type']);
    expect(d.audit[0].after.reason).toBe('準備');
    expect((await api('GET', `/admin/users/${randomUUID()}`, admin)).statusCode).toBe(404);
    expect((await api('GET', '/admin/users/not-a-uuid', admin)).statusCode).toBe(400);
  });

  it('needs a reason for every change, and a refused change writes nothing', async () => {
    const user = await ctx.newUser('trial', 'reason');
    for (const [url, payload] of [
      [`/admin/users/${user.id}/change-type`, { account_type: 'individual' }],
      [`/admin/users/${user.id}/change-type`, { account_type: 'individual', reason: '   ' }],
      [`/admin/users/${user.id}/suspend`, {}],
      [`/admin/users/${user.id}/suspend`, { reason: 'x'.repeat(501) }],
    ] as const) {
      const res = await api('POST', url, admin, payload);
      expect(res.statusCode, url).toBe(400);
      expect(res.body).toMatch(/理由/);
    }
    expect(await auditCount(user.id)).toBe(0);
    const row = (await ctx.query<{ account_type: string; status: string }>('SELECT account_type, status FROM users WHERE id = $1', [user.id]))[0]!;
    expect(row).toEqual({ account_type: 'trial', status: 'active' });
  });

  it('suspension ends sessions and API keys at once, with one audit row each way; a second suspension is a 409', async () => {
    const user = await ctx.newUser('individual', 'suspend', '準備');
    const key = (await api('POST', '/api-keys', user, { name: '停止テスト' })).json().data.key as string;
    const search = () => ctx.app.inject({ method: 'GET', url: '/api/v1/poi/search?keyword=test', headers: { 'x-api-key': key } });
    expect((await search()).statusCode).not.toBe(403);
    const before = await auditCount(user.id);
    const res = await api('POST', `/admin/users/${user.id}/suspend`, admin, { reason: '不正利用の疑い' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.user).toMatchObject({ status: 'suspended', status_reason: '不正利用の疑い' });
    expect((await api('GET', '/user', user)).statusCode).toBe(401);
    const refused = await search();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('ACCOUNT_SUSPENDED');
    expect(await auditCount(user.id)).toBe(before + 1);
    expect((await api('POST', `/admin/users/${user.id}/suspend`, admin, { reason: '再度' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/users/${user.id}/activate`, admin, { reason: '確認済み' })).statusCode).toBe(200);
    expect((await search()).statusCode).not.toBe(403);
    expect((await api('POST', `/admin/users/${user.id}/activate`, admin, { reason: '再度' })).statusCode).toBe(409);
    const audit = await ctx.query<{ action: string; actor_id: string; after: { reason: string; status: string } }>(
      "SELECT action, actor_id, after FROM audit_logs WHERE target_id = $1 AND action <> 'user.change_type' ORDER BY id",
      [user.id],
    );
    expect(audit.map((a) => [a.action, a.actor_id, a.after.status, a.after.reason])).toEqual([
      ['user.suspend', admin.id, 'suspended', '不正利用の疑い'],
      ['user.activate', admin.id, 'active', '確認済み'],
    ]);
  });

  it('a provider turned consumer keeps the revenue already earned, and gets it back unchanged', async () => {
    const p = await ctx.newUser('data_provider', 'earner', '準備');
    const dataset = (await api('POST', '/datasets/public/create', p, { name: '収益テスト', price_per_search: 2 })).json().data.dataset_id as string;
    const month = '2026-01';
    // As the meter's flush stores it: per consumer, and summed without the consumer (what /revenue reads).
    await ctx.query(
      `INSERT INTO usage_dataset_daily (dataset_id, day, user_id, recipient_id, searches, amount_sen, revenue_units) VALUES ($1, '2026-01-15', $2, $3, 40, 8000, 56000000)`,
      [dataset, trial.id, p.id],
    );
    await ctx.query(
      `INSERT INTO usage_platform_dataset_daily (day, recipient_id, dataset_id, searches, amount_sen, revenue_units) VALUES ('2026-01-15', $2, $1, 40, 8000, 56000000)`,
      [dataset, p.id],
    );
    const report = async () => (await api('GET', `/datasets/revenue/monthly?year_month=${month}`, p)).json();
    const earned = await report();
    expect(JSON.stringify(earned)).toContain('56');
    expect((await api('POST', `/admin/users/${p.id}/change-type`, admin, { account_type: 'individual', reason: '契約終了' })).statusCode).toBe(200);
    expect((await ctx.query('SELECT recipient_id FROM usage_dataset_daily WHERE dataset_id = $1', [dataset]))[0]).toEqual({ recipient_id: p.id });
    expect((await ctx.query('SELECT recipient_id FROM usage_platform_dataset_daily WHERE dataset_id = $1', [dataset]))[0]).toEqual({ recipient_id: p.id });
    expect((await api('POST', `/admin/users/${p.id}/change-type`, admin, { account_type: 'data_provider', reason: '契約再開' })).statusCode).toBe(200);
    expect(await report()).toEqual(earned);
  });

  it('never suspends or demotes the last active admin; two admins suspending each other at once leave one', async () => {
    const second = await ctx.newUser('trial', 'admin2');
    const promote = await api('POST', `/admin/users/${second.id}/change-type`, admin, { account_type: 'trial', role: 'admin', reason: '管理者追加' });
    expect(promote.statusCode, promote.body).toBe(200);
    expect(promote.json().data.user.role).toBe('admin');
    // Demoting yourself is refused; so is suspending yourself.
    expect((await api('POST', `/admin/users/${second.id}/change-type`, second, { account_type: 'trial', role: 'user', reason: 'x' })).statusCode).toBe(400);
    expect((await api('POST', `/admin/users/${second.id}/suspend`, second, { reason: 'x' })).statusCode).toBe(400);

    const [a, b] = await Promise.all([
      api('POST', `/admin/users/${second.id}/suspend`, admin, { reason: '相互停止A' }),
      api('POST', `/admin/users/${admin.id}/suspend`, second, { reason: '相互停止B' }),
    ]);
    const codes = [a.statusCode, b.statusCode].sort();
    expect(codes).toEqual([200, 409]);
    const loser = a.statusCode === 409 ? a : b;
    expect(loser.json().error.message).toBe(LAST_ADMIN_MESSAGE);
    const active = await ctx.query<{ id: string }>("SELECT id FROM users WHERE role = 'admin' AND status = 'active'");
    expect(active).toHaveLength(1);
    // Bring the suspended one back (by the remaining admin) so later tests have their admin.
    const remaining = active[0]!.id === admin.id ? admin : second;
    const other = remaining === admin ? second : admin;
    expect((await api('POST', `/admin/users/${other.id}/activate`, remaining, { reason: '復帰' })).statusCode).toBe(200);
    if (remaining !== admin) {
      // The suspension ended the first admin's sessions: sign in again (past the resend wait), also
      // for the context's own calls (ctx.newUser changes types as this admin).
      await ctx.query("UPDATE auth_challenges SET created_at = created_at - interval '61 seconds' WHERE email = $1", [admin.email]);
      admin = await ctx.admin({ again: true });
    }
    // Demote the second admin: allowed while another active admin remains.
    expect((await api('POST', `/admin/users/${second.id}/change-type`, admin, { account_type: 'trial', role: 'user', reason: '管理者解除' })).statusCode).toBe(200);
  });
});

describe('audit log', () => {
  it('filters by actor, target, action and Japan-time days, newest first, paging with a total', async () => {
    const user = await ctx.newUser('trial', 'audited');
    for (const reason of ['一回目', '二回目']) {
      expect((await api('POST', `/admin/users/${user.id}/suspend`, admin, { reason })).statusCode).toBe(200);
      expect((await api('POST', `/admin/users/${user.id}/activate`, admin, { reason })).statusCode).toBe(200);
    }
    const get = async (q: string) => {
      const res = await api('GET', `/admin/audit-logs?${q}`, admin);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { entries: Array<{ id: number; action: string; target_id: string; actor_email: string }>; total: number };
    };
    const byTarget = await get(`target_type=user&target_id=${user.id}`);
    expect(byTarget.total).toBe(4);
    expect(byTarget.entries.map((e) => e.action)).toEqual(['user.activate', 'user.suspend', 'user.activate', 'user.suspend']);
    const ids = byTarget.entries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect((await get(`target_id=${user.id}&action=user.suspend`)).total).toBe(2);
    expect((await get(`target_id=${user.id}&actor=admin@example.com`)).total).toBe(4);
    expect((await get(`target_id=${user.id}&actor=${admin.id}`)).total).toBe(4);
    expect((await get(`target_id=${user.id}&actor=${trial.id}`)).total).toBe(0);
    const today = new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);
    expect((await get(`target_id=${user.id}&from=${today}&to=${today}`)).total).toBe(4);
    expect((await get(`target_id=${user.id}&to=2020-01-01`)).total).toBe(0);
    const page = await get(`target_id=${user.id}&limit=3&offset=3`);
    expect(page.entries.map((e) => e.id)).toEqual(ids.slice(3));
    expect((await api('GET', '/admin/audit-logs?from=yesterday', admin)).statusCode).toBe(400);
  });
});

describe('two instances', () => {
  it.skipIf(!process.env.TEST_DATABASE_URL)('a suspension reaches the sessions and API keys of another instance within a second (NOTIFY), not the cache lifetimes', async () => {
    const user = await ctx.newUser('individual', 'multi', '準備');
    const key = (await api('POST', '/api-keys', user, { name: '別インスタンス' })).json().data.key as string;
    // The second instance opens the same database as the first.
    const url = (ctx.database.db as unknown as { $client: { options: { connectionString: string } } }).$client.options.connectionString;
    const db2 = await openDatabase({ url });
    const app2 = await buildApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', APP_SECRET: 'test-secret-0123456789abcdef0123456789abcdef', BILLING_JOBS: 'off', DATA_DIR: '/tmp', DATABASE_URL: url }),
      { database: db2 },
    );
    try {
      const search = () => app2.inject({ method: 'GET', url: '/api/v1/poi/search?keyword=test', headers: { 'x-api-key': key } });
      expect((await search()).statusCode).not.toBe(403);
      expect((await app2.inject({ method: 'GET', url: '/console/v1/user', headers: bearer(user.token) })).statusCode).toBe(200);
      const at = Date.now();
      expect((await api('POST', `/admin/users/${user.id}/suspend`, admin, { reason: '別インスタンス確認' })).statusCode).toBe(200);
      // The other instance hears of it by NOTIFY: within a second (milliseconds, unless the machine
      // is loaded), far below the 5 s session and 10 s key cache lifetimes it would otherwise take.
      const session = () => app2.inject({ method: 'GET', url: '/console/v1/user', headers: bearer(user.token) });
      while ((await session()).statusCode !== 401 || (await search()).statusCode !== 403) {
        expect(Date.now() - at).toBeLessThan(1_000);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await app2.close();
      await db2.close();
    }
  }, 20_000);
});
