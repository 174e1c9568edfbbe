import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminCorporateMessages } from '../src/modules/corporate/admin-corporate.service';
import { withTestContext, type Actor, type TestContext } from './helpers';

/*
 * Admin calls on corporate accounts: roles, list filters and paging, create with an
 * owner, update for future invoices only, suspend stopping members' keys, reject and activate
 * state rules, members (never the last owner), one audit row per change.
 */

let ctx: TestContext;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const company = (over: Record<string, unknown> = {}) => ({
  company_name: '株式会社ポイ管理',
  company_name_kana: 'カブシキガイシャポイカンリ',
  department: '経理部',
  postal_code: '1000001',
  address: '東京都千代田区千代田1-1',
  phone: '03-1234-5678',
  billing_contact_name: '請求 花子',
  billing_emails: ['keiri@example.com'],
  corporate_number: null,
  registration_number: null,
  payment_method: 'bank_transfer',
  ...over,
});

const auditOf = async (id: string) =>
  ctx.query<{ action: string; after: Record<string, unknown> }>('SELECT action, after FROM audit_logs WHERE target_id = $1 ORDER BY id', [id]);

async function create(owner: Actor, over: Record<string, unknown> = {}) {
  const res = await api('POST', '/admin/corporate/create', admin, { ...company(over), owner_user_id: owner.id, credit_limit: 300000, reason: '営業経由の契約' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { account: { id: string; status: string; customer_number: string; credit_limit: number }; members: Array<{ id: string; corporate_role: string }> };
}

withTestContext({}, async (opened) => {
  ctx = opened;
  admin = await ctx.admin();
});

describe('admin corporate', () => {
  it('answers 401 unsigned and 403 to non-admins on every call', async () => {
    const user = await ctx.newUser('individual', 'nonadmin', '準備');
    const id = randomUUID();
    const calls: Array<[method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>]> = [
      ['GET', '/admin/corporate'],
      ['GET', `/admin/corporate/${id}`],
      ['POST', '/admin/corporate/create', { ...company(), owner_user_id: user.id, reason: 'x' }],
      ['POST', `/admin/corporate/${id}/update`, { reason: 'x' }],
      ['POST', `/admin/corporate/${id}/suspend`, { reason: 'x' }],
      ['POST', `/admin/corporate/${id}/reject`, { reason: 'x' }],
      ['POST', `/admin/corporate/${id}/members`, { user_id: user.id, role: 'member', reason: 'x' }],
      ['POST', `/admin/corporate/${id}/members/${user.id}/remove`, { reason: 'x' }],
    ];
    for (const [method, url, payload] of calls) {
      expect((await api(method, url, undefined, payload)).statusCode, url).toBe(401);
      expect((await api(method, url, user, payload)).statusCode, url).toBe(403);
    }
  });

  it('creates an active account with its owner, billing account and one audit row', async () => {
    const owner = await ctx.newUser('trial', 'owner');
    const d = await create(owner);
    expect(d.account).toMatchObject({ status: 'active', credit_limit: 300000 });
    expect(d.account.customer_number).toMatch(/^\d{7}$/);
    expect(d.members).toEqual([expect.objectContaining({ id: owner.id, corporate_role: 'owner' })]);
    expect((await api('GET', '/user', owner)).json().user.account_type).toBe('corporate');
    expect((await auditOf(d.account.id)).map((a) => a.action)).toEqual(['corporate_account.created']);
    // The owner of one company cannot own a second.
    const again = await api('POST', '/admin/corporate/create', admin, { ...company(), owner_user_id: owner.id, reason: 'x' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe(adminCorporateMessages.inOtherCorporate);
    const bad = await api('POST', '/admin/corporate/create', admin, { ...company({ company_name_kana: 'かな' }), owner_user_id: owner.id, reason: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('カタカナ');
  });

  it('lists by status and search, newest first, with paging and an exact total', async () => {
    const mark = `検索${Date.now().toString(36)}`;
    for (let i = 0; i < 5; i++) await create(await ctx.newUser('trial', `list${i}`), { company_name: `${mark}商事${i}` });
    const page = async (q: string) => {
      const res = await api('GET', `/admin/corporate?${q}`, admin);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as { accounts: Array<{ id: string; company_name: string; member_count: number; customer_number: string }>; total: number };
    };
    const all = await page(`q=${encodeURIComponent(mark)}`);
    expect(all.total).toBe(5);
    expect(all.accounts.map((a) => a.company_name)).toEqual([4, 3, 2, 1, 0].map((i) => `${mark}商事${i}`));
    expect(all.accounts.every((a) => a.member_count === 1)).toBe(true);
    const walked = [...(await page(`q=${encodeURIComponent(mark)}&limit=2`)).accounts, ...(await page(`q=${encodeURIComponent(mark)}&limit=2&offset=2`)).accounts, ...(await page(`q=${encodeURIComponent(mark)}&limit=2&offset=4`)).accounts];
    expect(walked.map((a) => a.id)).toEqual(all.accounts.map((a) => a.id));
    expect((await page(`q=${all.accounts[0]!.customer_number}`)).accounts.map((a) => a.id)).toEqual([all.accounts[0]!.id]);
    const csv = await api('GET', `/admin/corporate.csv?q=${encodeURIComponent(mark)}`, admin);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.startsWith('\uFEFF法人アカウントID,状態,会社名')).toBe(true);
    expect(csv.body.trim().split('\r\n').slice(1).map((l) => l.split(',')[0])).toEqual(all.accounts.map((a) => a.id));
    expect((await page(`q=${encodeURIComponent(mark)}&status=pending`)).total).toBe(0);
    expect((await api('GET', '/admin/corporate?status=closed', admin)).statusCode).toBe(400);
  });

  it('updates company and billing data for future invoices only; issued invoices keep their snapshot', async () => {
    const owner = await ctx.newUser('trial', 'update');
    const d = await create(owner);
    const account = (await ctx.query<{ id: string }>('SELECT id FROM billing_accounts WHERE corporate_account_id = $1', [d.account.id]))[0]!;
    await ctx.query(
      `INSERT INTO invoices (billing_account_id, year_month, number, status, period_start, period_end, issue_date, due_date, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
       VALUES ($1, '2026-01', 'POI-202601-9' || floor(random() * 99999)::int, 'issued', '2026-01-01', '2026-01-31', '2026-02-01', '2026-03-31', 1000, 100, 1100, 'bank_transfer', '{}', '{"addressee":"株式会社ポイ管理 経理部"}')`,
      [account.id],
    );
    const res = await api('POST', `/admin/corporate/${d.account.id}/update`, admin, { company_name: '株式会社ポイ新社名', billing_emails: ['new@example.com'], credit_limit: 500000, reason: '商号変更' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.account).toMatchObject({ company_name: '株式会社ポイ新社名', billing_emails: ['new@example.com'], credit_limit: 500000, department: '経理部' });
    const billing = (await ctx.query<{ addressee: string; billing_emails: string[] }>('SELECT addressee, billing_emails FROM billing_accounts WHERE id = $1', [account.id]))[0]!;
    expect(billing).toEqual({ addressee: '株式会社ポイ新社名 経理部', billing_emails: ['new@example.com'] });
    const issued = (await ctx.query<{ recipient_snapshot: { addressee: string } }>('SELECT recipient_snapshot FROM invoices WHERE billing_account_id = $1', [account.id]))[0]!;
    expect(issued.recipient_snapshot.addressee).toBe('株式会社ポイ管理 経理部');
    const audit = await auditOf(d.account.id);
    expect(audit.map((a) => a.action)).toEqual(['corporate_account.created', 'corporate_account.updated']);
    expect(audit[1]!.after).toEqual({ company_name: '株式会社ポイ新社名', billing_emails: ['new@example.com'], credit_limit: 500000, reason: '商号変更' });
    // Members pay as their company does: the user list's payment method follows the change.
    const method = async () => (await api('GET', `/admin/users/${owner.id}`, admin)).json().data.user.payment_method;
    expect(await method()).toBe('bank_transfer');
    expect((await api('POST', `/admin/corporate/${d.account.id}/update`, admin, { payment_method: 'card', reason: 'カード払いへ' })).statusCode).toBe(200);
    expect(await method()).toBe('card');
    expect((await api('GET', `/admin/users?payment_method=card&q=${encodeURIComponent(owner.email)}`, admin)).json().data.total).toBe(1);
    expect((await api('POST', `/admin/corporate/${d.account.id}/update`, admin, { company_name: '' , reason: 'x' })).statusCode).toBe(400);
    expect((await api('POST', `/admin/corporate/${d.account.id}/update`, admin, { company_name: '名前だけ' })).statusCode).toBe(400);
    expect(await auditOf(d.account.id)).toHaveLength(3);
  });

  it("suspending stops every member's API key at once; reactivating brings them back", async () => {
    const owner = await ctx.newUser('trial', 'suspendowner');
    const d = await create(owner);
    const member = await ctx.newUser('trial', 'member');
    expect((await api('POST', `/admin/corporate/${d.account.id}/members`, admin, { user_id: member.id, role: 'member', reason: '追加' })).statusCode).toBe(200);
    const key = (await api('POST', '/api-keys', member, { name: '法人メンバー' })).json().data.key as string;
    const search = () => ctx.app.inject({ method: 'GET', url: '/api/v1/poi/search?keyword=test', headers: { 'x-api-key': key } });
    expect((await search()).statusCode).not.toBe(403);
    const res = await api('POST', `/admin/corporate/${d.account.id}/suspend`, admin, { reason: '支払遅延' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.account.status).toBe('suspended');
    const refused = await search();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toContain('法人アカウントが停止');
    // Members still sign in to the console (to see /billing).
    expect((await api('GET', '/user', member)).statusCode).toBe(200);
    expect((await api('POST', `/admin/corporate/${d.account.id}/suspend`, admin, { reason: '再度' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/corporate/${d.account.id}/reject`, admin, { reason: '却下' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/corporate/${d.account.id}/activate`, admin, { reason: '入金確認' })).statusCode).toBe(200);
    expect((await search()).statusCode).not.toBe(403);
    expect((await auditOf(d.account.id)).map((a) => a.action)).toEqual([
      'corporate_account.created',
      'corporate_account.member_added',
      'corporate_account.suspended',
      'corporate_account.reactivated',
    ]);
  });

  it('rejects a pending application once, with its reason shown to the applicant', async () => {
    const applicant = await ctx.newUser('trial', 'applicant');
    const applied = await api('POST', '/upgrade/corporate', applicant, company());
    expect(applied.statusCode, applied.body).toBe(200);
    const id = applied.json().data.id as string;
    expect((await api('POST', `/admin/corporate/${id}/reject`, admin, {})).statusCode).toBe(400);
    const res = await api('POST', `/admin/corporate/${id}/reject`, admin, { reason: '与信審査の結果' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.account).toMatchObject({ status: 'rejected', status_reason: '与信審査の結果' });
    expect((await api('POST', `/admin/corporate/${id}/reject`, admin, { reason: '再度' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/corporate/${id}/activate`, admin, {})).statusCode).toBe(409);
    const view = (await api('GET', '/upgrade', applicant)).json().data;
    expect(view.application).toMatchObject({ status: 'rejected', status_reason: '与信審査の結果' });
  });

  it('adds and removes members, never the last owner nor a member of another company', async () => {
    const owner = await ctx.newUser('trial', 'membersowner');
    const d = await create(owner);
    const other = await create(await ctx.newUser('trial', 'otherowner'));
    const billing = await ctx.newUser('individual', 'billing', '準備');
    const add = await api('POST', `/admin/corporate/${d.account.id}/members`, admin, { user_id: billing.id, role: 'billing', reason: '経理担当' });
    expect(add.statusCode, add.body).toBe(200);
    expect(add.json().data.members.map((m: { corporate_role: string }) => m.corporate_role).sort()).toEqual(['billing', 'owner']);
    expect((await api('POST', `/admin/corporate/${other.account.id}/members`, admin, { user_id: billing.id, role: 'member', reason: 'x' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/corporate/${d.account.id}/members`, admin, { user_id: billing.id, role: 'member', reason: 'x' })).statusCode).toBe(409);
    expect((await api('POST', `/admin/corporate/${d.account.id}/members`, admin, { user_id: randomUUID(), role: 'member', reason: 'x' })).statusCode).toBe(404);
    const provider = await ctx.newUser('data_provider', 'provider', '準備');
    expect((await api('POST', `/admin/corporate/${d.account.id}/members`, admin, { user_id: provider.id, role: 'member', reason: 'x' })).statusCode).toBe(409);
    const last = await api('POST', `/admin/corporate/${d.account.id}/members/${owner.id}/remove`, admin, { reason: 'x' });
    expect(last.statusCode).toBe(409);
    expect(last.json().error.message).toBe(adminCorporateMessages.lastOwner);
    expect((await api('POST', `/admin/corporate/${d.account.id}/members/${provider.id}/remove`, admin, { reason: 'x' })).statusCode).toBe(404);
    const removed = await api('POST', `/admin/corporate/${d.account.id}/members/${billing.id}/remove`, admin, { reason: '退職' });
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data.members).toHaveLength(1);
    expect((await api('GET', '/user', billing)).json().user.account_type).toBe('trial');
    expect((await auditOf(d.account.id)).map((a) => a.action)).toEqual(['corporate_account.created', 'corporate_account.member_added', 'corporate_account.member_removed']);
  });

  it('shows the detail with members, invoices and the audit trail; unknown ids are 404', async () => {
    const owner = await ctx.newUser('trial', 'detail');
    const d = await create(owner);
    const res = await api('GET', `/admin/corporate/${d.account.id}`, admin);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.account).toMatchObject({ id: d.account.id, status: 'active', payment_method: 'bank_transfer', applied_by: owner.id });
    expect(data.members).toHaveLength(1);
    expect(data.invoices).toEqual([]);
    expect(data.audit.map((a: { action: string }) => a.action)).toEqual(['corporate_account.created']);
    expect((await api('GET', `/admin/corporate/${randomUUID()}`, admin)).statusCode).toBe(404);
    expect((await api('GET', '/admin/corporate/abc', admin)).statusCode).toBe(400);
  });
});
