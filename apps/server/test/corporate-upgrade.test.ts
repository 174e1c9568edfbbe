import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { corporateMessages } from '../src/modules/corporate/corporate.service';
import { paymentMessages } from '../src/modules/payments/payment-messages';
import { captureLog, createTestContext, type ApiMethod, type Actor, type Caller, type TestContext } from './helpers';
import { withStripeTestContext } from './support/stripe-context';

/*
 * Upgrade view, corporate applications and their activation (docs/billing.md "Upgrades and
 * corporate accounts"): by card (active once the card is saved, through the same activation function) or by
 * invoice (pending until an administrator approves); reactivation; the public /commerce notice.
 */

let ctx: TestContext;
let admin: Actor;

/** ctx.api, or the same call on another context's app. */
const api = (method: ApiMethod, url: string, who?: Caller, body?: unknown, c: TestContext = ctx) => c.api(method, url, who, body);

const application = (over: Record<string, unknown> = {}) => ({
  company_name: '株式会社ポイ',
  company_name_kana: 'カブシキガイシャポイ',
  department: '経理部',
  postal_code: '1000001',
  address: '東京都千代田区千代田1-1',
  phone: '03-1234-5678',
  billing_contact_name: '請求 花子',
  billing_emails: ['Keiri@Example.com'],
  corporate_number: '1234567890123',
  registration_number: 'T1234567890123',
  payment_method: 'bank_transfer',
  ...over,
});

async function mailTo(to: string, subject: string, c: TestContext = ctx) {
  await c.app.corporate.idle();
  const deadline = Date.now() + 5000;
  for (;;) {
    const mail = c.mailbox.received.filter((m) => m.to === to.toLowerCase() && m.subject.includes(subject)).at(-1);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const corpRow = async (id: string) => (await ctx.query<Record<string, unknown>>('SELECT * FROM corporate_accounts WHERE id = $1', [id]))[0]!;
const userRow = async (id: string) => (await ctx.query<Record<string, unknown>>('SELECT account_type, corporate_account_id, corporate_role FROM users WHERE id = $1', [id]))[0]!;

withStripeTestContext(
  {
    BILLING_JOBS: 'off',
    ISSUER_NAME: 'POI Cloud株式会社',
    ISSUER_REPRESENTATIVE: '代表 太郎',
    ISSUER_ADDRESS: '東京都千代田区1-1-1',
    ISSUER_PHONE: '03-0000-0000',
    ISSUER_PHONE_HOURS: '平日10:00〜17:00',
    ISSUER_EMAIL: 'support@poi.example.com',
    ISSUER_REGISTRATION_NUMBER: 'T1234567890123',
    BANK_NAME: 'テスト銀行',
    BANK_BRANCH: '本店',
    BANK_ACCOUNT_NUMBER: '1234567',
    BANK_ACCOUNT_HOLDER: 'ポイクラウド',
  },
  async (opened) => {
    ctx = opened;
    admin = await ctx.admin();
  },
);

describe('who may call what', () => {
  it('answers 401 without a session, and 403 to non-administrators on the activation', async () => {
    const id = randomUUID();
    expect((await api('GET', '/upgrade')).statusCode).toBe(401);
    expect((await api('POST', '/upgrade/corporate', undefined, application())).statusCode).toBe(401);
    expect((await api('POST', `/admin/corporate/${id}/activate`, undefined, {})).statusCode).toBe(401);
    for (const type of ['trial', 'individual', 'corporate', 'data_provider']) {
      const user = await ctx.newUser(type, 'corp');
      expect((await api('POST', `/admin/corporate/${id}/activate`, user, {})).statusCode, type).toBe(403);
      expect((await api('GET', '/upgrade', user)).statusCode, type).toBe(200);
    }
    expect((await api('GET', '/upgrade', admin)).statusCode).toBe(200);
  });
});

describe('the upgrade view', () => {
  it('shows the plans in force for trial, individual and corporate, the caller type, no application, and card availability', async () => {
    const user = await ctx.newUser('trial', 'corp');
    const res = await api('GET', '/upgrade', user);
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json().data;
    expect(view).toMatchObject({ account_type: 'trial', application: null, card_payments_available: true });
    const current = (await api('GET', '/admin/pricing/current', admin)).json().data as Array<Record<string, unknown>>;
    expect(view.plans.map((p: { account_type: string }) => p.account_type)).toEqual(['trial', 'individual', 'corporate']);
    for (const plan of view.plans) {
      const v = (Array.isArray(current) ? current : (current as unknown as { versions: Array<Record<string, unknown>> }).versions).find((c) => c.account_type === plan.account_type)!;
      expect(plan).toEqual({
        account_type: v.account_type,
        base_fee: v.base_fee,
        free_searches_per_month: v.free_searches_per_month,
        monthly_fee: Math.floor(Number(v.monthly_fee)),
        rate_limit_per_minute: v.rate_limit_per_minute,
        max_api_keys: v.max_api_keys,
        effective_from: v.effective_from,
      });
    }

    // A new version in force now replaces the old; one from next year does not show yet.
    await ctx.query(
      `INSERT INTO pricing_versions (account_type, effective_from, base_fee, free_searches_per_month, monthly_fee, provider_share_bp, rate_limit_per_minute, max_api_keys)
       VALUES ('individual', now() - interval '1 second', 1.25, 777, 980, 7000, 321, 7), ('individual', now() + interval '365 days', 9.99, 1, 5000, 7000, 1, 1)`,
    );
    ctx.app.changes.changed('pricing');
    const after = (await api('GET', '/upgrade', user)).json().data.plans.find((p: { account_type: string }) => p.account_type === 'individual');
    expect(after).toMatchObject({ base_fee: 1.25, free_searches_per_month: 777, monthly_fee: 980, rate_limit_per_minute: 321, max_api_keys: 7 });
  });
});

describe('applying for a corporate account', () => {
  it('refuses invalid input in Japanese with nothing written', async () => {
    const user = await ctx.newUser('trial', 'corp');
    for (const [over, text] of [
      [{ company_name: '' }, '会社名を入力してください'],
      [{ company_name_kana: 'かぶしき' }, 'カタカナで入力してください'],
      [{ postal_code: '12-345' }, '郵便番号は 123-4567'],
      [{ phone: 'abc' }, '電話番号は数字とハイフン'],
      [{ billing_emails: [] }, '請求書送付先メールアドレスを1件以上'],
      [{ billing_emails: ['not-an-email'] }, 'メールアドレスの形式'],
      [{ corporate_number: '123' }, '法人番号は13桁'],
      [{ registration_number: 'T0123' }, '登録番号は T と13桁'],
      [{ payment_method: 'cash' }, ''],
    ] as const) {
      const res = await api('POST', '/upgrade/corporate', user, application(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(JSON.stringify(res.json()), JSON.stringify(over)).toContain(text);
      expect(JSON.stringify(res.json())).toMatch(/[ぁ-んァ-ン一-龥]/);
    }
    expect(await ctx.query('SELECT 1 FROM corporate_accounts WHERE applied_by = $1', [user.id])).toHaveLength(0);
    expect((await api('GET', '/upgrade', user)).json().data.application).toBeNull();
  });

  it('by invoice: pending, waiting for approval, shown on /upgrade, audited; a second application is a 409; an admin approves it', async () => {
    const user = await ctx.newUser('individual', 'corp');
    const res = await api('POST', '/upgrade/corporate', user, application());
    expect(res.statusCode, res.body).toBe(200);
    const app1 = res.json().data;
    expect(app1).toMatchObject({
      status: 'pending',
      waiting_for: 'approval',
      company_name: '株式会社ポイ',
      postal_code: '100-0001',
      billing_emails: ['keiri@example.com'],
      payment_method: 'bank_transfer',
      status_reason: null,
    });
    expect((await api('GET', '/upgrade', user)).json().data).toMatchObject({ account_type: 'individual', application: app1 });
    expect(await corpRow(app1.id)).toMatchObject({ applied_by: user.id, status: 'pending' });
    const audit = await ctx.query<{ action: string; actor_id: string }>(`SELECT action, actor_id FROM audit_logs WHERE target_id = $1`, [app1.id]);
    expect(audit).toEqual([{ action: 'corporate_account.applied', actor_id: user.id }]);

    const twice = await api('POST', '/upgrade/corporate', user, application({ company_name: '別会社' }));
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.message).toBe(corporateMessages.alreadyPending);
    expect(await ctx.query('SELECT 1 FROM corporate_accounts WHERE applied_by = $1', [user.id])).toHaveLength(1);

    // Approval: active, limit and terms, the applicant owner, a corporate billing account by bank transfer.
    const ok = await api('POST', `/admin/corporate/${app1.id}/activate`, admin, { credit_limit: 500000, payment_terms: 'month_end_next_month', reason: '与信確認済み' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ id: app1.id, status: 'active', waiting_for: null, status_reason: '与信確認済み' });
    const corp = await corpRow(app1.id);
    expect([corp.status, Number(corp.credit_limit_yen), corp.payment_terms, corp.decided_by]).toEqual(['active', 500000, 'month_end_next_month', admin.id]);
    expect(corp.decided_at).not.toBeNull();
    expect(await userRow(user.id)).toEqual({ account_type: 'corporate', corporate_account_id: app1.id, corporate_role: 'owner' });
    const [billing] = await ctx.query(`SELECT kind, payment_method, honorific, addressee, billing_emails FROM billing_accounts WHERE corporate_account_id = $1`, [app1.id]);
    expect(billing).toEqual({ kind: 'corporate', payment_method: 'bank_transfer', honorific: '御中', addressee: '株式会社ポイ 経理部', billing_emails: ['keiri@example.com'] });
    const account = (await api('GET', '/billing/account', user)).json().data;
    expect(account.account).toMatchObject({ kind: 'corporate', payment_method: 'bank_transfer' });
    expect(account.account.bank_transfer).toMatchObject({ bank_name: 'テスト銀行' });
    const audits = await ctx.query<{ action: string; actor_id: string }>(`SELECT action, actor_id FROM audit_logs WHERE target_id IN ($1, $2) ORDER BY id`, [app1.id, user.id]);
    expect(audits.map((a) => a.action)).toEqual(expect.arrayContaining(['corporate_account.applied', 'corporate_account.activated', 'user.account_type_changed']));
    expect(audits.filter((a) => a.action !== 'corporate_account.applied').every((a) => a.actor_id === admin.id)).toBe(true);
    const mail = await mailTo(user.email, '法人アカウントのお申し込みを承認しました');
    expect(mail.text).toContain('株式会社ポイ 御中');
    expect(mail.text).toContain('銀行振込');
    expect(mail.html).toContain('<html lang="ja">');
    expect((await api('GET', '/upgrade', user)).json().data).toMatchObject({ account_type: 'corporate', application: { status: 'active', waiting_for: null } });

    // Already active: 409; a corporate user cannot apply again.
    const again = await api('POST', `/admin/corporate/${app1.id}/activate`, admin, {});
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe(corporateMessages.alreadyActive);
    const reapply = await api('POST', '/upgrade/corporate', user, application());
    expect(reapply.statusCode).toBe(409);
    expect(reapply.json().error.message).toBe(corporateMessages.notEligible);
  });

  it('by card: waiting for the card; saving it through Checkout activates it (the shared activation); an admin may approve a card application too', async () => {
    const user = await ctx.newUser('trial', 'corp');
    const res = await api('POST', '/upgrade/corporate', user, application({ payment_method: 'card', department: null, corporate_number: null, registration_number: null }));
    expect(res.statusCode, res.body).toBe(200);
    const applied = res.json().data;
    expect(applied).toMatchObject({ status: 'pending', waiting_for: 'card', department: null, corporate_number: null });
    const start = await api('POST', '/payment-method/checkout', user, { purpose: 'corporate' });
    expect(start.statusCode, start.body).toBe(200);
    const url: string = start.json().data.url;
    await fetch(url);
    const submit = await fetch(`${url}/submit`, { method: 'POST', body: new URLSearchParams({ card: 'pm_card_visa' }), redirect: 'manual' });
    const sessionId = new URL(submit.headers.get('location')!).searchParams.get('session_id')!;
    const done = await api('POST', '/payment-method/complete', user, { session_id: sessionId });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toMatchObject({ purpose: 'corporate', account_type: 'corporate' });
    expect(await corpRow(applied.id)).toMatchObject({ status: 'active' });
    expect(await userRow(user.id)).toEqual({ account_type: 'corporate', corporate_account_id: applied.id, corporate_role: 'owner' });
    const [billing] = await ctx.query(`SELECT payment_method, card_last4 FROM billing_accounts WHERE corporate_account_id = $1`, [applied.id]);
    expect(billing).toEqual({ payment_method: 'card', card_last4: '4242' });
    const audits = await ctx.query<{ action: string; after: { via?: string } }>(`SELECT action, after FROM audit_logs WHERE target_id = $1 ORDER BY id`, [applied.id]);
    expect(audits.map((a) => [a.action, a.after.via ?? null])).toEqual([
      ['corporate_account.applied', null],
      ['corporate_account.activated', 'card_saved'],
    ]);

    const other = await ctx.newUser('individual', 'corp');
    const cardApp = (await api('POST', '/upgrade/corporate', other, application({ payment_method: 'card' }))).json().data;
    const approved = await api('POST', `/admin/corporate/${cardApp.id}/activate`, admin, {});
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await userRow(other.id)).toMatchObject({ account_type: 'corporate', corporate_role: 'owner' });
    const [b2] = await ctx.query(`SELECT payment_method FROM billing_accounts WHERE corporate_account_id = $1`, [cardApp.id]);
    expect(b2).toEqual({ payment_method: 'card' });
  });

  it('reactivates a suspended account (members stay, mail says so); refuses a rejected application, an unknown id (404) and a malformed one (400)', async () => {
    const user = await ctx.newUser('individual', 'corp');
    const applied = (await api('POST', '/upgrade/corporate', user, application())).json().data;
    expect((await api('POST', `/admin/corporate/${applied.id}/activate`, admin, {})).statusCode).toBe(200);
    await ctx.query(`UPDATE corporate_accounts SET status = 'suspended', status_reason = '未払い' WHERE id = $1`, [applied.id]);
    const res = await api('POST', `/admin/corporate/${applied.id}/activate`, admin, { reason: '入金確認' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'active', status_reason: '入金確認' });
    expect(await userRow(user.id)).toEqual({ account_type: 'corporate', corporate_account_id: applied.id, corporate_role: 'owner' });
    const audit = await ctx.query<{ action: string; before: { status: string } }>(`SELECT action, before FROM audit_logs WHERE target_id = $1 AND action = 'corporate_account.reactivated'`, [applied.id]);
    expect(audit.map((a) => a.before.status)).toEqual(['suspended']);
    expect((await mailTo(user.email, 'ご利用を再開しました')).text).toContain('株式会社ポイ 様の法人アカウントのご利用を再開しました');

    const rejectedUser = await ctx.newUser('trial', 'corp');
    const rejected = (await api('POST', '/upgrade/corporate', rejectedUser, application())).json().data;
    await ctx.query(`UPDATE corporate_accounts SET status = 'rejected', status_reason = '確認できませんでした' WHERE id = $1`, [rejected.id]);
    const refused = await api('POST', `/admin/corporate/${rejected.id}/activate`, admin, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(corporateMessages.rejected);
    expect(await userRow(rejectedUser.id)).toMatchObject({ account_type: 'trial', corporate_account_id: null });
    expect((await api('GET', '/upgrade', rejectedUser)).json().data.application).toMatchObject({ status: 'rejected', waiting_for: null, status_reason: '確認できませんでした' });
    // After a rejection a new application may be made.
    expect((await api('POST', '/upgrade/corporate', rejectedUser, application())).statusCode).toBe(200);

    // An applicant who joined another corporate account meanwhile is not moved.
    const mover = await ctx.newUser('trial', 'corp');
    const pendingApp = (await api('POST', '/upgrade/corporate', mover, application())).json().data;
    await ctx.query(`UPDATE users SET corporate_account_id = $1, corporate_role = 'member' WHERE id = $2`, [applied.id, mover.id]);
    const elsewhere = await api('POST', `/admin/corporate/${pendingApp.id}/activate`, admin, {});
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json().error.message).toBe(corporateMessages.applicantElsewhere);
    expect(await corpRow(pendingApp.id)).toMatchObject({ status: 'pending' });

    const unknown = await api('POST', `/admin/corporate/${randomUUID()}/activate`, admin, {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe(corporateMessages.notFound);
    const malformed = await api('POST', '/admin/corporate/nope/activate', admin, {});
    expect(malformed.statusCode).toBe(400);
    expect(JSON.stringify(malformed.json())).toContain('法人アカウントIDの形式が正しくありません');
    const badLimit = await api('POST', `/admin/corporate/${rejected.id}/activate`, admin, { credit_limit: -1 });
    expect(badLimit.statusCode).toBe(400);
    expect(JSON.stringify(badLimit.json())).toContain('与信限度額は0以上');
  });
});

describe('a card application while card payments are off (no STRIPE_SECRET_KEY)', () => {
  it('is refused up front with the card-unavailable 503 and nothing written; a bank-transfer application then goes through', async () => {
    const bare = await createTestContext();
    try {
      const user = await bare.newUser('trial', 'corp');
      expect((await api('GET', '/upgrade', user, undefined, bare)).json().data.card_payments_available).toBe(false);
      const card = await api('POST', '/upgrade/corporate', user, application({ payment_method: 'card' }), bare);
      expect(card.statusCode, card.body).toBe(503);
      expect(card.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: paymentMessages.cardUnavailable });
      expect(await bare.query('SELECT 1 FROM corporate_accounts WHERE applied_by = $1', [user.id])).toHaveLength(0);
      expect(await bare.query('SELECT 1 FROM audit_logs WHERE actor_id = $1', [user.id])).toHaveLength(0);
      expect((await api('GET', '/upgrade', user, undefined, bare)).json().data.application).toBeNull();

      const transfer = await api('POST', '/upgrade/corporate', user, application(), bare);
      expect(transfer.statusCode, transfer.body).toBe(200);
      expect(transfer.json().data).toMatchObject({ status: 'pending', waiting_for: 'approval', payment_method: 'bank_transfer' });
      expect(await bare.query('SELECT status, payment_method FROM corporate_accounts WHERE applied_by = $1', [user.id])).toEqual([{ status: 'pending', payment_method: 'bank_transfer' }]);
    } finally {
      await bare.close();
    }
  });
});

describe('/commerce (特定商取引法に基づく表記)', () => {
  it('answers without sign-in, complete, from the configuration', async () => {
    const res = await api('GET', '/commerce');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      complete: true,
      missing: [],
      seller: 'POI Cloud株式会社',
      representative: '代表 太郎',
      address: '東京都千代田区1-1-1',
      phone: '03-0000-0000',
      phone_hours: '平日10:00〜17:00',
      email: 'support@poi.example.com',
      registration_number: 'T1234567890123',
      bank_account: 'テスト銀行 本店 普通 1234567 ポイクラウド',
    });
  });

  it('lists what is missing and warns once at start-up when the configuration is incomplete', async () => {
    const log = captureLog();
    const bare = await createTestContext({ LOG_LEVEL: 'warn', ISSUER_NAME: 'POI Cloud株式会社', ISSUER_PHONE: '03-0000-0000' }, { logStream: log.stream });
    try {
      const res = await api('GET', '/commerce', undefined, undefined, bare);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        complete: false,
        missing: ['ISSUER_REPRESENTATIVE', 'ISSUER_ADDRESS', 'ISSUER_EMAIL'],
        seller: 'POI Cloud株式会社',
        representative: null,
        email: null,
        bank_account: null,
      });
      await api('GET', '/commerce', undefined, undefined, bare);
      const warnings = log.find(/特定商取引法/);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.missing).toEqual([
        'ISSUER_REPRESENTATIVE',
        'ISSUER_ADDRESS',
        'ISSUER_EMAIL',
        'ISSUER_REGISTRATION_NUMBER',
        'BANK_NAME',
        'BANK_BRANCH',
        'BANK_ACCOUNT_NUMBER',
        'BANK_ACCOUNT_HOLDER',
      ]);
    } finally {
      await bare.close();
    }
    expect(log.find(/特定商取引法/)).toHaveLength(1);
  });
});
