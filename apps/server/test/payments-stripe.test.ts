import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { paymentMessages } from '../src/modules/payments/payment-messages';
import { bearer, createTestContext, signIn, uniqueEmail, type Actor, type TestContext } from './helpers';
import type { FakeStripe } from './support/fake-stripe';
import { withStripeTestContext } from './support/stripe-context';

/*
 * Card payments through Stripe (docs/billing.md "Card payments"), against the fake Stripe server with
 * the real SDK: saving a card (Checkout in setup mode), charging issued invoices off-session,
 * declines and retries, 3-D Secure, webhooks (signature, duplicates, order), no sen ever sent.
 */

let ctx: TestContext;
let fake: FakeStripe;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

const sessionIdOf = (url: string) => /\/checkout\/(cs_[A-Za-z0-9_]+)/.exec(url)![1]!;

/** The browser's path through the stand-in hosted page: open it, press a card's button, follow the redirect. */
async function payOnHostedPage(url: string, card: string): Promise<string> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(`value="${card}"`);
  const res = await fetch(`${url}/submit`, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
  expect(res.status).toBe(303);
  return res.headers.get('location')!;
}

/** Saves a card through checkout → hosted page → complete; answers the complete call's data. */
async function saveCard(who: Actor, purpose: 'card' | 'upgrade_individual' | 'corporate', card = 'pm_card_visa') {
  const start = await api('POST', '/payment-method/checkout', who, { purpose });
  expect(start.statusCode, start.body).toBe(200);
  const back = await payOnHostedPage(start.json().data.url, card);
  const sessionId = new URL(back).searchParams.get('session_id')!;
  const done = await api('POST', '/payment-method/complete', who, { session_id: sessionId });
  expect(done.statusCode, done.body).toBe(200);
  return { sessionId, data: done.json().data };
}

async function billingAccountOf(userId: string) {
  const [row] = await ctx.query<Record<string, unknown>>(
    `SELECT b.* FROM billing_accounts b JOIN users u ON (b.user_id = u.id OR b.corporate_account_id = u.corporate_account_id) WHERE u.id = $1 ORDER BY (b.corporate_account_id IS NOT NULL) DESC LIMIT 1`,
    [userId],
  );
  return row!;
}

let invoiceSeq = 0;
/** An issued card invoice, the way the close makes one: draft, lines, then number and status in one transaction. */
async function issueInvoice(billingAccountId: string, subtotal: number, options: { issueDate?: string } = {}): Promise<string> {
  const tax = Math.floor((subtotal * 10) / 100);
  const issueDate = options.issueDate ?? new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);
  const number = `POI-209901-${String(++invoiceSeq).padStart(6, '0')}-${Math.random().toString(36).slice(2, 6)}`;
  // Three statements (autocommit): the draft, its lines, then number and status.
  const [inv] = await ctx.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, 'correction', '2099-01', 'draft', '2099-01-01', '2099-01-31', $2, $3, $4, 'card', '{"name":"POI Cloud"}', '{"addressee":"テスト 太郎","honorific":"様"}') RETURNING id`,
    [billingAccountId, subtotal, tax, subtotal + tax],
  );
  await ctx.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', $2, 100, $2)`, [inv!.id, subtotal]);
  await ctx.query(`UPDATE invoices SET number = $2, status = 'issued', issue_date = $3, due_date = $3, issued_at = now() WHERE id = $1`, [inv!.id, number, issueDate]);
  return inv!.id;
}

/** The newest mail to the address whose subject holds the text (mails go out in the background). */
async function mailAbout(to: string, subject: string) {
  await ctx.app.payments.idle();
  const deadline = Date.now() + 5000;
  for (;;) {
    const mail = ctx.mailbox.received.filter((m) => m.to === to.toLowerCase() && m.subject.includes(subject)).at(-1);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** bigint columns come back as strings from node-postgres and as numbers from PGlite: numbers here. */
const numeric = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, (k.endsWith('_yen') || k === 'provider_state_at') && v !== null ? Number(v) : v]));
const invoiceRow = async (id: string) => numeric((await ctx.query<Record<string, unknown>>('SELECT * FROM invoices WHERE id = $1', [id]))[0]!);
const paymentsOf = async (id: string) => (await ctx.query<Record<string, unknown>>('SELECT * FROM payments WHERE invoice_id = $1', [id])).map(numeric);
const intentBodies = () => fake.requestsTo('/v1/payment_intents').map((r) => r.body);

withStripeTestContext({ BILLING_JOBS: 'off' }, async (opened, started) => {
  ctx = opened;
  fake = started;
  admin = await ctx.admin();
});

describe('saving a card (Checkout in setup mode)', () => {
  it('upgrades a trial user once the card is saved; the complete call is safe on reload; another user gets 404', async () => {
    const user = await ctx.newUser('trial', 'upgrade');
    const start = await api('POST', '/payment-method/checkout', user, { purpose: 'upgrade_individual' });
    expect(start.statusCode, start.body).toBe(200);
    const url: string = start.json().data.url;
    expect(url.startsWith(`${fake.url}/checkout/cs_`)).toBe(true);
    const account = await billingAccountOf(user.id);
    const sent = fake.requestsTo('/v1/checkout/sessions').at(-1)!;
    expect(sent.body).toMatchObject({
      mode: 'setup',
      customer: account.stripe_customer_id,
      success_url: 'http://console.test/payment-method/complete?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://console.test/upgrade',
      metadata: { user_id: user.id, billing_account_id: account.id, purpose: 'upgrade_individual' },
    });
    expect(sent.stripeVersion).toBe('2026-10-28.endive');
    expect(fake.customers.get(String(account.stripe_customer_id))?.metadata).toMatchObject({ billing_account_id: account.id });

    // Returning before the page was submitted: not complete yet.
    const early = await api('POST', '/payment-method/complete', user, { session_id: sessionIdOf(url) });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toBe(paymentMessages.sessionNotComplete);

    const back = await payOnHostedPage(url, 'pm_card_visa');
    expect(back).toBe(`http://console.test/payment-method/complete?session_id=${sessionIdOf(url)}`);
    const done = await api('POST', '/payment-method/complete', user, { session_id: sessionIdOf(url) });
    expect(done.statusCode, done.body).toBe(200);
    const data = done.json().data;
    expect(data).toMatchObject({ purpose: 'upgrade_individual', account_type: 'individual', next: '/upgrade', card: { brand: 'visa', last4: '4242', exp_month: 12 } });

    const saved = await billingAccountOf(user.id);
    expect(saved).toMatchObject({ card_brand: 'visa', card_last4: '4242', card_exp_month: 12 });
    expect(fake.customers.get(String(saved.stripe_customer_id))?.invoice_settings).toEqual({ default_payment_method: saved.card_payment_method_id });
    expect((await ctx.query('SELECT account_type FROM users WHERE id = $1', [user.id]))[0]).toEqual({ account_type: 'individual' });
    const me = await api('GET', '/user', user);
    expect(me.json().user.account_type).toBe('individual');

    // Reload: the same answer, nothing changes twice.
    const audits = async () => (await ctx.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_logs WHERE target_id IN ($1, $2)`, [user.id, String(saved.id)]))[0]!.n;
    const before = await audits();
    expect(before).toBe(2);
    const again = await api('POST', '/payment-method/complete', user, { session_id: sessionIdOf(url) });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(data);
    expect(await audits()).toBe(before);

    // Someone else's session is not found; an unknown one neither.
    const other = await ctx.newUser('trial', 'other');
    expect((await api('POST', '/payment-method/complete', other, { session_id: sessionIdOf(url) })).statusCode).toBe(404);
    expect((await api('POST', '/payment-method/complete', other, { session_id: 'cs_test_nope' })).statusCode).toBe(404);
    expect((await api('POST', '/payment-method/complete', undefined, { session_id: sessionIdOf(url) })).statusCode).toBe(401);

    // Already upgraded: the upgrade checkout is refused; a card change is the 'card' purpose.
    const refused = await api('POST', '/payment-method/checkout', user, { purpose: 'upgrade_individual' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(paymentMessages.alreadyUpgraded);
    const replace = await saveCard(user, 'card', 'pm_card_chargeDeclined');
    expect(replace.data).toMatchObject({ purpose: 'card', next: '/billing', card: { last4: '0002' } });
    expect(fake.requestsTo('/v1/customers').length).toBeGreaterThanOrEqual(1);
    // One customer per billing account, reused.
    expect(fake.requestsTo('/v1/customers').filter((r) => (r.body.metadata as Record<string, string>)?.billing_account_id === saved.id)).toHaveLength(1);
    await ctx.app.payments.idle();
    expect(fake.paymentMethods.get(String(saved.card_payment_method_id))?.customer).toBeNull();
  });

  it('refuses the card purpose to trial users and the upgrade purpose without sign-in', async () => {
    const user = await ctx.newUser('trial', 'trial');
    const res = await api('POST', '/payment-method/checkout', user, { purpose: 'card' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toBe(paymentMessages.trialUseUpgrade);
    expect((await api('POST', '/payment-method/checkout', undefined, { purpose: 'card' })).statusCode).toBe(401);
    expect((await api('POST', '/payment-method/checkout', user, { purpose: 'bitcoin' })).statusCode).toBe(400);
  });

  it('activates a pending card corporate application when its card is saved', async () => {
    const user = await ctx.newUser('trial', 'corp');
    expect((await api('POST', '/payment-method/checkout', user, { purpose: 'corporate' })).statusCode).toBe(409);
    const [corp] = await ctx.query<{ id: string }>(
      `INSERT INTO corporate_accounts (status, company_name, company_name_kana, postal_code, address, phone, billing_contact_name, billing_emails, payment_method, applied_by)
       VALUES ('pending', '株式会社テスト', 'カブシキガイシャテスト', '100-0001', '東京都千代田区1-1', '03-1234-5678', '請求 太郎', ARRAY[$1], 'card', $2) RETURNING id`,
      [user.email, user.id],
    );
    const { data, sessionId } = await saveCard(user, 'corporate');
    expect(data).toMatchObject({ purpose: 'corporate', account_type: 'corporate', next: '/upgrade', card: { last4: '4242' } });
    const [u] = await ctx.query('SELECT account_type, corporate_account_id, corporate_role FROM users WHERE id = $1', [user.id]);
    expect(u).toEqual({ account_type: 'corporate', corporate_account_id: corp!.id, corporate_role: 'owner' });
    const [c] = await ctx.query('SELECT status FROM corporate_accounts WHERE id = $1', [corp!.id]);
    expect(c).toEqual({ status: 'active' });
    const [b] = await ctx.query('SELECT kind, payment_method, card_last4, honorific FROM billing_accounts WHERE corporate_account_id = $1', [corp!.id]);
    expect(b).toEqual({ kind: 'corporate', payment_method: 'card', card_last4: '4242', honorific: '御中' });
    const again = await api('POST', '/payment-method/complete', user, { session_id: sessionId });
    expect(again.json().data).toEqual(data);
    const audits = await ctx.query(`SELECT action FROM audit_logs WHERE target_id = $1`, [corp!.id]);
    expect(audits).toEqual([{ action: 'corporate_account.activated' }]);
  });
});

describe('charging invoices', () => {
  let payer: Actor;
  let accountId: string;

  beforeAll(async () => {
    payer = await ctx.newUser('trial', 'payer');
    await saveCard(payer, 'upgrade_individual', 'pm_card_visa');
    accountId = String((await billingAccountOf(payer.id)).id);
  });

  it('charges the remaining amount in whole yen with the attempt idempotency key and records it once', async () => {
    const invoiceId = await issueInvoice(accountId, 1122); // tax 112 → ¥1,234
    // An open invoice: the card cannot be removed.
    const refused = await api('POST', '/payment-method/remove', payer);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(paymentMessages.openInvoice);

    const outcome = await ctx.app.payments.chargeInvoice(invoiceId);
    expect(outcome.outcome).toBe('paid');
    const req = fake.requestsTo('/v1/payment_intents').at(-1)!;
    expect(req.idempotencyKey).toBe(`invoice:${invoiceId}:attempt:1`);
    const account = await billingAccountOf(payer.id);
    expect(req.body).toMatchObject({
      amount: '1234',
      currency: 'jpy',
      customer: account.stripe_customer_id,
      payment_method: account.card_payment_method_id,
      off_session: 'true',
      confirm: 'true',
      metadata: { invoice_id: invoiceId },
    });
    const inv = await invoiceRow(invoiceId);
    expect(inv).toMatchObject({ status: 'paid', paid_yen: 1234, stripe_payment_intent_id: (outcome as { paymentIntentId: string }).paymentIntentId });
    const paid = await paymentsOf(invoiceId);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ method: 'card', amount_yen: 1234, stripe_payment_intent_id: inv.stripe_payment_intent_id });

    // The webhook of the same intent arrives afterwards, twice: nothing more is recorded.
    const pi = fake.paymentIntents.get(String(inv.stripe_payment_intent_id))!;
    const evt = fake.event('payment_intent.succeeded', pi);
    const deliveries = await fake.sendWebhook(evt, { duplicate: true });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(JSON.parse(deliveries[1]!.body)).toMatchObject({ duplicate: true });
    expect(await paymentsOf(invoiceId)).toHaveLength(1);
    expect((await ctx.query('SELECT count(*)::int AS n FROM provider_events WHERE id = $1', [evt.id]))[0]).toEqual({ n: 1 });

    // A second charge finds nothing to do; settled, the card can now be removed.
    expect((await ctx.app.payments.chargeInvoice(invoiceId)).outcome).toBe('skipped');
  });

  it('books a payment once when the webhook races the charge answer', async () => {
    const invoiceId = await issueInvoice(accountId, 2000);
    fake.setAutoWebhooks(true);
    try {
      expect((await ctx.app.payments.chargeInvoice(invoiceId)).outcome).toBe('paid');
      await fake.settled();
    } finally {
      fake.setAutoWebhooks(false);
    }
    expect(await paymentsOf(invoiceId)).toHaveLength(1);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 2200 });
  });

  it('records a payment the webhook brought first; the charge then has nothing left to do', async () => {
    const invoiceId = await issueInvoice(accountId, 500); // ¥550
    const account = await billingAccountOf(payer.id);
    const sdk = new Stripe('sk_test_direct', { host: '127.0.0.1', port: fake.port, protocol: 'http' });
    const pi = await sdk.paymentIntents.create({ amount: 550, currency: 'jpy', customer: String(account.stripe_customer_id), payment_method: String(account.card_payment_method_id), off_session: true, confirm: true, metadata: { invoice_id: invoiceId } });
    const [delivery] = await fake.sendWebhook(fake.event('payment_intent.succeeded', pi as unknown as { id: string }));
    expect(delivery!.status).toBe(200);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 550 });
    expect((await ctx.app.payments.chargeInvoice(invoiceId)).outcome).toBe('skipped');
    expect(await paymentsOf(invoiceId)).toHaveLength(1);
  });

  it('removes the card once nothing is owed', async () => {
    const res = await api('POST', '/payment-method/remove', payer);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().message).toBe(paymentMessages.cardRemoved);
    const account = await billingAccountOf(payer.id);
    expect(account).toMatchObject({ card_payment_method_id: null, card_last4: null, card_brand: null });
    expect(fake.requestsTo(/^\/v1\/payment_methods\/.*\/detach$/).length).toBeGreaterThan(0);
    const again = await api('POST', '/payment-method/remove', payer);
    expect(again.json().message).toBe(paymentMessages.noCard);
  });
});

describe('declines and 3-D Secure', () => {
  it('retries a declined card on days 3, 5 and 7 after issue (09:00 JST), then the invoice is overdue', async () => {
    const user = await ctx.newUser('trial', 'declined');
    await saveCard(user, 'upgrade_individual', 'pm_card_chargeDeclined');
    const accountId = String((await billingAccountOf(user.id)).id);
    const invoiceId = await issueInvoice(accountId, 1000, { issueDate: '2026-01-05' });

    const first = await ctx.app.payments.chargeInvoice(invoiceId);
    expect(first).toMatchObject({ outcome: 'declined', attempts: 1, overdue: false });
    let inv = await invoiceRow(invoiceId);
    expect(inv).toMatchObject({ status: 'issued', payment_attempts: 1, last_payment_error: paymentMessages.declined });
    expect(new Date(String(inv.next_retry_at)).toISOString()).toBe('2026-01-08T00:00:00.000Z');
    const mail = await mailAbout(user.email, 'カード決済ができませんでした');
    expect(mail.text).toContain('2026-01-08');

    expect((await ctx.app.payments.runDueRetries(new Date('2026-01-07T23:59:59Z'))).attempted).toBe(0);
    await ctx.app.payments.runDueRetries(new Date('2026-01-08T00:00:00Z'));
    inv = await invoiceRow(invoiceId);
    expect(inv.payment_attempts).toBe(2);
    expect(new Date(String(inv.next_retry_at)).toISOString()).toBe('2026-01-10T00:00:00.000Z');
    await ctx.app.payments.runDueRetries(new Date('2026-01-10T00:00:00Z'));
    inv = await invoiceRow(invoiceId);
    expect(inv.payment_attempts).toBe(3);
    expect(new Date(String(inv.next_retry_at)).toISOString()).toBe('2026-01-12T00:00:00.000Z');
    await ctx.app.payments.runDueRetries(new Date('2026-01-12T00:00:00Z'));
    inv = await invoiceRow(invoiceId);
    expect(inv).toMatchObject({ status: 'overdue', payment_attempts: 4, next_retry_at: null });
    expect((await ctx.app.payments.runDueRetries(new Date('2026-02-01T00:00:00Z'))).attempted).toBe(0);

    const keys = fake.requestsTo('/v1/payment_intents').filter((r) => (r.body.metadata as Record<string, string>).invoice_id === invoiceId).map((r) => r.idempotencyKey);
    expect(keys).toEqual([1, 2, 3, 4].map((n) => `invoice:${invoiceId}:attempt:${n}`));
    expect(await paymentsOf(invoiceId)).toHaveLength(0);
    const audits = await ctx.query(`SELECT action FROM audit_logs WHERE target_id = $1`, [invoiceId]);
    expect(audits).toHaveLength(4);
  });

  it('a retry succeeds once the card works again', async () => {
    const user = await ctx.newUser('trial', 'recovers');
    await saveCard(user, 'upgrade_individual', 'pm_card_chargeDeclined');
    const account = await billingAccountOf(user.id);
    const invoiceId = await issueInvoice(String(account.id), 900, { issueDate: '2026-01-05' });
    expect((await ctx.app.payments.chargeInvoice(invoiceId)).outcome).toBe('declined');
    fake.setCardOutcome(String(account.card_payment_method_id), 'success');
    await ctx.app.payments.runDueRetries(new Date('2026-01-08T00:00:00Z'));
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 990, next_retry_at: null, last_payment_error: null });
  });

  it('a charge Stripe refuses for another reason (card detached on Stripe) counts as a failed attempt', async () => {
    const user = await ctx.newUser('trial', 'detached');
    await saveCard(user, 'upgrade_individual');
    const account = await billingAccountOf(user.id);
    const invoiceId = await issueInvoice(String(account.id), 700);
    const sdk = new Stripe('sk_test_direct', { host: '127.0.0.1', port: fake.port, protocol: 'http' });
    await sdk.paymentMethods.detach(String(account.card_payment_method_id));
    await ctx.app.payments.chargeInvoices([invoiceId]);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'issued', payment_attempts: 1, last_payment_error: paymentMessages.chargeFailed });
  });

  it('authentication required: a pay-now link is stored and mailed; paying on the hosted page settles the invoice once', async () => {
    const user = await ctx.newUser('trial', 'threeds');
    await saveCard(user, 'upgrade_individual', 'pm_card_authenticationRequired');
    const accountId = String((await billingAccountOf(user.id)).id);
    const invoiceId = await issueInvoice(accountId, 3000); // ¥3,300

    const outcome = await ctx.app.payments.chargeInvoice(invoiceId);
    expect(outcome).toMatchObject({ outcome: 'authentication_required', attempts: 1 });
    const inv = await invoiceRow(invoiceId);
    expect(inv.last_payment_error).toBe(paymentMessages.authenticationRequired);
    expect(String(inv.pay_now_url)).toMatch(new RegExp(`^${fake.url}/checkout/cs_`));
    const session = fake.requestsTo('/v1/checkout/sessions').at(-1)!;
    expect(session.idempotencyKey).toBe(`invoice:${invoiceId}:attempt:1:pay_now`);
    expect(session.body).toMatchObject({
      mode: 'payment',
      customer: (await billingAccountOf(user.id)).stripe_customer_id,
      line_items: [{ quantity: '1', price_data: { currency: 'jpy', unit_amount: '3300' } }],
      payment_intent_data: { metadata: { invoice_id: invoiceId } },
    });
    const mail = await mailAbout(user.email, 'お支払い手続きのお願い');
    expect(mail.text).toContain(String(inv.pay_now_url));
    expect(mail.html).toContain(String(inv.pay_now_url));

    fake.setAutoWebhooks(true);
    try {
      const back = await payOnHostedPage(String(inv.pay_now_url), 'pm_card_visa');
      expect(back).toBe(`http://console.test/billing/invoices/${invoiceId}?paid=1`);
      await fake.settled();
    } finally {
      fake.setAutoWebhooks(false);
    }
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 3300, pay_now_url: null, last_payment_error: null });
    expect(await paymentsOf(invoiceId)).toHaveLength(1);
  });
});

describe('webhooks', () => {
  let accountId: string;
  beforeAll(async () => {
    const user = await ctx.newUser('trial', 'hooks');
    await saveCard(user, 'upgrade_individual');
    accountId = String((await billingAccountOf(user.id)).id);
  });

  const intent = (invoiceId: string, status: string, extra: Record<string, unknown> = {}) => ({
    id: `pi_test_manual_${Math.random().toString(36).slice(2)}`,
    object: 'payment_intent',
    amount: 1100,
    amount_received: status === 'succeeded' ? 1100 : 0,
    currency: 'jpy',
    status,
    metadata: { invoice_id: invoiceId },
    created: Math.floor(Date.now() / 1000),
    last_payment_error: null,
    ...extra,
  });

  it('refuses a missing or wrong signature with 400 and stores nothing', async () => {
    const evt = fake.event('payment_intent.succeeded', intent('00000000-0000-4000-8000-000000000000', 'succeeded'));
    const url = `/webhooks/stripe`;
    const missing = await ctx.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(evt) });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toBe(paymentMessages.badSignature);
    const wrongSecret = Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(evt), secret: 'whsec_other' });
    const [bad] = await fake.sendWebhook(evt, { signature: wrongSecret });
    expect(bad!.status).toBe(400);
    // Signed bytes that differ from the body sent (re-serialised JSON) fail too.
    const signedOther = Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(evt, null, 2), secret: fake.webhookSecret });
    const [tampered] = await fake.sendWebhook(evt, { signature: signedOther });
    expect(tampered!.status).toBe(400);
    expect(await ctx.query('SELECT id FROM provider_events WHERE id = $1', [evt.id])).toEqual([]);
  });

  it('an older payment_failed arriving after succeeded changes nothing', async () => {
    const invoiceId = await issueInvoice(accountId, 1000);
    const t = Math.floor(Date.now() / 1000);
    const ok = intent(invoiceId, 'succeeded');
    const failed = intent(invoiceId, 'requires_payment_method', { last_payment_error: { code: 'card_declined', decline_code: 'generic_decline' } });
    expect((await fake.sendWebhook(fake.event('payment_intent.succeeded', ok, { created: t })))[0]!.status).toBe(200);
    expect((await fake.sendWebhook(fake.event('payment_intent.payment_failed', failed, { created: t - 30 })))[0]!.status).toBe(200);
    // Even a newer failure of another intent does not undo a paid invoice.
    expect((await fake.sendWebhook(fake.event('payment_intent.payment_failed', failed, { created: t + 30 })))[0]!.status).toBe(200);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 1100, last_payment_error: null, stripe_payment_intent_id: ok.id });
    expect(Number((await invoiceRow(invoiceId)).provider_state_at)).toBe(t);
  });

  it('keeps the newest failure when failures arrive out of order, and duplicates are no-ops', async () => {
    const invoiceId = await issueInvoice(accountId, 1000);
    const t = Math.floor(Date.now() / 1000);
    const newer = fake.event('payment_intent.payment_failed', intent(invoiceId, 'requires_payment_method', { last_payment_error: { code: 'expired_card' } }), { created: t });
    const older = fake.event('payment_intent.payment_failed', intent(invoiceId, 'requires_payment_method', { last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' } }), { created: t - 60 });
    await fake.sendWebhook(newer, { duplicate: true });
    await fake.sendWebhook(older);
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'issued', last_payment_error: paymentMessages.expired, payment_attempts: 0 });
    expect((await ctx.query('SELECT count(*)::int AS n FROM provider_events WHERE id IN ($1, $2)', [newer.id, older.id]))[0]).toEqual({ n: 2 });
  });

  it('checkout.session.completed saves the card like the complete call, once, in either order', async () => {
    const user = await ctx.newUser('trial', 'hooked');
    const start = await api('POST', '/payment-method/checkout', user, { purpose: 'upgrade_individual' });
    const sessionId = sessionIdOf(start.json().data.url);
    fake.completeCheckout(sessionId, 'pm_card_visa');
    const evt = fake.event('checkout.session.completed', fake.sessions.get(sessionId)!);
    const deliveries = await fake.sendWebhook(evt, { duplicate: true });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect((await ctx.query('SELECT account_type FROM users WHERE id = $1', [user.id]))[0]).toEqual({ account_type: 'individual' });
    expect(await billingAccountOf(user.id)).toMatchObject({ card_last4: '4242' });
    // The browser comes back afterwards: same result, no second change.
    const done = await api('POST', '/payment-method/complete', user, { session_id: sessionId });
    expect(done.statusCode).toBe(200);
    expect(done.json().data).toMatchObject({ account_type: 'individual', card: { last4: '4242' } });
    const audits = await ctx.query(`SELECT action FROM audit_logs WHERE target_id = $1`, [user.id]);
    expect(audits).toEqual([{ action: 'user.account_type_changed' }]);
  });

  it('ignores events it does not handle (200) and stores them once', async () => {
    const evt = fake.event('customer.created', { id: 'cus_test_x', object: 'customer' });
    const [d] = await fake.sendWebhook(evt);
    expect(d!.status).toBe(200);
  });
});

describe('paid datasets get a Stripe Product', () => {
  it('creates one product per paid dataset (idempotency key dataset:<id>:product), none for free ones', async () => {
    const provider = await ctx.newUser('trial', 'provider');
    expect((await api('POST', `/admin/users/${provider.id}/change-type`, admin, { account_type: 'data_provider', reason: 'テスト' })).statusCode).toBe(200);
    const paid = await api('POST', '/datasets/public/create', provider, { name: '有料データ', price_per_search: 1.5 });
    expect(paid.statusCode, paid.body).toBe(200);
    const free = await api('POST', '/datasets/public/create', provider, { name: '無料データ', price_per_search: 0 });
    const paidId = paid.json().data.dataset_id;
    const freeId = free.json().data.dataset_id;
    await ctx.app.payments.idle();
    const [row] = await ctx.query<{ stripe_product_id: string }>('SELECT stripe_product_id FROM datasets WHERE id = $1', [paidId]);
    expect(row!.stripe_product_id).toMatch(/^prod_test_/);
    expect(fake.products.get(row!.stripe_product_id)).toMatchObject({ name: '有料データ', metadata: { dataset_id: paidId } });
    expect(fake.requestsTo('/v1/products').find((r) => (r.body.metadata as Record<string, string>).dataset_id === paidId)?.idempotencyKey).toBe(`dataset:${paidId}:product`);
    expect((await ctx.query('SELECT stripe_product_id FROM datasets WHERE id = $1', [freeId]))[0]).toEqual({ stripe_product_id: null });

    // Priced later: the product comes then.
    expect((await api('POST', `/datasets/${freeId}/price`, provider, { new_price: 2, reason: '有料化' })).statusCode).toBe(200);
    await ctx.app.payments.idle();
    expect((await ctx.query<{ stripe_product_id: string | null }>('SELECT stripe_product_id FROM datasets WHERE id = $1', [freeId]))[0]!.stripe_product_id).toMatch(/^prod_test_/);
  });
});

describe('what is sent to Stripe', () => {
  // Its own charges, so the test holds when run alone (-t): odd amounts paid by card, and one
  // that needs 3-D Secure (a pay-now Checkout session in payment mode).
  beforeAll(async () => {
    const payer = await ctx.newUser('trial', 'whole-yen');
    await saveCard(payer, 'upgrade_individual', 'pm_card_visa');
    const payerAccount = String((await billingAccountOf(payer.id)).id);
    for (const subtotal of [50, 99, 1122, 4545, 12_345, 99_999]) expect((await ctx.app.payments.chargeInvoice(await issueInvoice(payerAccount, subtotal))).outcome).toBe('paid');
    const threeDs = await ctx.newUser('trial', 'whole-yen-3ds');
    await saveCard(threeDs, 'upgrade_individual', 'pm_card_authenticationRequired');
    const threeDsAccount = String((await billingAccountOf(threeDs.id)).id);
    expect((await ctx.app.payments.chargeInvoice(await issueInvoice(threeDsAccount, 777))).outcome).toBe('authentication_required');
  });

  it('never sends sen: every amount is a whole number of yen in JPY', () => {
    const bodies = intentBodies();
    expect(bodies.length).toBeGreaterThan(5);
    for (const b of bodies) {
      expect(String(b.amount)).toMatch(/^[1-9]\d*$/);
      expect(b.currency).toBe('jpy');
    }
    for (const r of fake.requestsTo('/v1/checkout/sessions').filter((x) => x.body.mode === 'payment')) {
      const items = r.body.line_items as Array<{ price_data: { unit_amount: string; currency: string } }>;
      for (const item of items) {
        expect(item.price_data.unit_amount).toMatch(/^[1-9]\d*$/);
        expect(item.price_data.currency).toBe('jpy');
      }
    }
    // Every charge used an idempotency key of the documented form.
    for (const r of fake.requestsTo('/v1/payment_intents').filter((x) => x.idempotencyKey?.startsWith('invoice:'))) {
      expect(r.idempotencyKey).toMatch(/^invoice:[0-9a-f-]{36}:attempt:[1-4]$/);
    }
  });
});

describe('when Stripe is down', () => {
  it('answers a clear Japanese 503 and writes nothing; a charge waits for the next run with the same key', async () => {
    const user = await ctx.newUser('trial', 'down');
    const start = await api('POST', '/payment-method/checkout', user, { purpose: 'upgrade_individual' });
    const sessionId = sessionIdOf(start.json().data.url);
    fake.completeCheckout(sessionId, 'pm_card_visa');

    const payer = await ctx.newUser('trial', 'downpayer');
    await saveCard(payer, 'upgrade_individual');
    const invoiceId = await issueInvoice(String((await billingAccountOf(payer.id)).id), 1000);

    const newcomer = await ctx.newUser('trial', 'downnew');
    await fake.stop();
    try {
      const checkout = await api('POST', '/payment-method/checkout', newcomer, { purpose: 'upgrade_individual' });
      expect(checkout.statusCode).toBe(503);
      expect(checkout.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: paymentMessages.stripeDown });
      expect((await billingAccountOf(newcomer.id)).stripe_customer_id).toBeNull();

      const done = await api('POST', '/payment-method/complete', user, { session_id: sessionId });
      expect(done.statusCode).toBe(503);
      expect(done.json().error.message).toBe(paymentMessages.stripeDown);
      expect((await ctx.query('SELECT account_type FROM users WHERE id = $1', [user.id]))[0]).toEqual({ account_type: 'trial' });
      expect((await billingAccountOf(user.id)).card_last4).toBeNull();

      const outcome = await ctx.app.payments.chargeInvoice(invoiceId);
      expect(outcome.outcome).toBe('retry_later');
      const inv = await invoiceRow(invoiceId);
      expect(inv).toMatchObject({ status: 'issued', payment_attempts: 0, paid_yen: 0 });
      expect(new Date(String(inv.next_retry_at)).getTime()).toBeGreaterThan(Date.now());
    } finally {
      await fake.restart();
    }
    // Back up: the next run charges with the same attempt key.
    expect((await ctx.app.payments.chargeInvoice(invoiceId)).outcome).toBe('paid');
    expect(fake.requestsTo('/v1/payment_intents').at(-1)!.idempotencyKey).toBe(`invoice:${invoiceId}:attempt:1`);
    expect((await api('POST', '/payment-method/complete', user, { session_id: sessionId })).statusCode).toBe(200);
  });
});

describe('without STRIPE_SECRET_KEY', () => {
  let plain: TestContext;
  beforeAll(async () => {
    plain = await createTestContext({ BILLING_JOBS: 'off' });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('card calls answer a Japanese 503; the rest works', async () => {
    const email = uniqueEmail('nostripe');
    const s = await signIn(plain, email);
    const who = bearer(s.token);
    for (const [url, payload] of [
      ['/console/v1/payment-method/checkout', { purpose: 'upgrade_individual' }],
      ['/console/v1/payment-method/complete', { session_id: 'cs_test_x' }],
    ] as const) {
      const res = await plain.app.inject({ method: 'POST', url, headers: who, payload });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: paymentMessages.cardUnavailable });
    }
    const remove = await plain.app.inject({ method: 'POST', url: '/console/v1/payment-method/remove', headers: who });
    expect(remove.statusCode).toBe(200);
    expect(remove.json().message).toBe(paymentMessages.noCard);
    const hook = await plain.app.inject({ method: 'POST', url: '/webhooks/stripe', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' }, payload: '{}' });
    expect(hook.statusCode).toBe(503);
    expect(plain.app.payments.cardPaymentsAvailable).toBe(false);
    expect((await plain.app.payments.chargeInvoice('00000000-0000-4000-8000-000000000000')).outcome).toBe('skipped');
    // Everything else still answers.
    expect((await plain.app.inject({ method: 'GET', url: '/console/v1/user', headers: who })).statusCode).toBe(200);
    expect((await plain.app.inject({ method: 'GET', url: '/console/v1/usage/summary', headers: who })).statusCode).toBe(200);
  });
});
