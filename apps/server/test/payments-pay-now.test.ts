import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentMessages } from '../src/modules/payments/payment-messages';
import { transferMessages } from '../src/modules/transfers/transfers.service';
import { createTestContext, type Actor, type TestContext } from './helpers';
import type { FakeStripe } from './support/fake-stripe';
import { withStripeTestContext } from './support/stripe-context';

/*
 * Paying an open or overdue card invoice on demand (docs/billing.md "Card payments"): POST
 * /billing/invoices/:id/pay opens Stripe Checkout in payment mode for exactly what remains, safe to
 * repeat; the webhooks book it once whatever their order; a newly saved card pays what is overdue;
 * the mails promise only what happens; an administrator may book a transfer on an overdue card invoice.
 */

let ctx: TestContext;
let fake: FakeStripe;
let admin: Actor;

const api: TestContext['api'] = (...args) => ctx.api(...args);

/** The browser's path through the stand-in hosted page: press a card's button, follow the redirect. */
async function payOnHostedPage(url: string, card: string): Promise<string> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const res = await fetch(`${url}/submit`, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
  expect(res.status).toBe(303);
  return res.headers.get('location')!;
}

async function saveCard(who: Actor, purpose: 'card' | 'upgrade_individual', card = 'pm_card_visa') {
  const start = await api('POST', '/payment-method/checkout', who, { purpose });
  expect(start.statusCode, start.body).toBe(200);
  const back = await payOnHostedPage(start.json().data.url, card);
  const sessionId = new URL(back).searchParams.get('session_id')!;
  const done = await api('POST', '/payment-method/complete', who, { session_id: sessionId });
  expect(done.statusCode, done.body).toBe(200);
  return sessionId;
}

async function accountOf(userId: string) {
  const [row] = await ctx.query<Record<string, unknown>>('SELECT * FROM billing_accounts WHERE user_id = $1', [userId]);
  return row!;
}

let seq = 0;
/** An issued invoice as the close makes one (see payments-stripe.test.ts), then put in the given state. */
async function issueInvoice(c: TestContext, billingAccountId: string, subtotal: number, state: { status?: string; attempts?: number; paid?: number; method?: 'card' | 'bank_transfer'; issueDate?: string } = {}): Promise<string> {
  const tax = Math.floor((subtotal * 10) / 100);
  const number = `POI-209902-${String(++seq).padStart(6, '0')}-${Math.random().toString(36).slice(2, 6)}`;
  const [inv] = await c.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, 'correction', '2099-02', 'draft', '2099-02-01', '2099-02-28', $2, $3, $4, $5, '{"name":"POI Cloud"}', '{"addressee":"テスト 太郎","honorific":"様"}') RETURNING id`,
    [billingAccountId, subtotal, tax, subtotal + tax, state.method ?? 'card'],
  );
  await c.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', $2, 100, $2)`, [inv!.id, subtotal]);
  await c.query(
    `UPDATE invoices SET number = $2, status = $3, issue_date = $4, due_date = $4, issued_at = now(), payment_attempts = $5, paid_yen = $6,
       last_payment_error = CASE WHEN $5 > 0 THEN $7 ELSE NULL END WHERE id = $1`,
    [inv!.id, number, state.status ?? 'issued', state.issueDate ?? '2026-01-05', state.attempts ?? 0, state.paid ?? 0, paymentMessages.declined],
  );
  return inv!.id;
}

const numeric = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, (k.endsWith('_yen') || k === 'provider_state_at') && v !== null ? Number(v) : v]));
const invoiceRow = async (id: string) => numeric((await ctx.query<Record<string, unknown>>('SELECT * FROM invoices WHERE id = $1', [id]))[0]!);
const paymentsOf = async (id: string) => (await ctx.query<Record<string, unknown>>('SELECT * FROM payments WHERE invoice_id = $1 ORDER BY created_at', [id])).map(numeric);
const auditActions = async (id: string) => (await ctx.query<{ action: string }>('SELECT action FROM audit_logs WHERE target_id = $1 ORDER BY id', [id])).map((r) => r.action);
const sessionsFor = (invoiceId: string) => fake.requestsTo('/v1/checkout/sessions').filter((r) => (r.body.metadata as Record<string, string> | undefined)?.invoice_id === invoiceId);
const pay = (who: Actor | undefined, id: string) => api('POST', `/billing/invoices/${id}/pay`, who);

async function mailTo(to: string, subject: string) {
  await ctx.app.payments.idle();
  const deadline = Date.now() + 5000;
  for (;;) {
    const mail = ctx.mailbox.received.filter((m) => m.to === to.toLowerCase() && m.subject.includes(subject)).at(-1);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

withStripeTestContext({ BILLING_JOBS: 'off' }, async (opened, started) => {
  ctx = opened;
  fake = started;
  admin = await ctx.admin();
});

describe('POST /billing/invoices/:id/pay', () => {
  let payer: Actor;
  let accountId: string;
  beforeAll(async () => {
    payer = await ctx.newUser('trial', 'paynow');
    await saveCard(payer, 'upgrade_individual', 'pm_card_chargeDeclined');
    accountId = String((await accountOf(payer.id)).id);
  });

  it('an overdue card invoice: Checkout in payment mode for exactly what remains, the same URL twice, booked once whatever the webhooks do', async () => {
    const invoiceId = await issueInvoice(ctx, accountId, 12345, { status: 'overdue', attempts: 4 }); // tax 1,234 → ¥13,579
    const before = await invoiceRow(invoiceId);

    const first = await pay(payer, invoiceId);
    expect(first.statusCode, first.body).toBe(200);
    const { url, amount, attempt } = first.json().data;
    expect({ amount, attempt }).toEqual({ amount: 13579, attempt: 1 });
    expect(url).toMatch(new RegExp(`^${fake.url}/checkout/cs_`));
    const sent = sessionsFor(invoiceId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.idempotencyKey).toBe(`invoice:${invoiceId}:pay:1`);
    expect(sent[0]!.body).toEqual({
      mode: 'payment',
      customer: (await accountOf(payer.id)).stripe_customer_id,
      allowed_payment_method_types: ['card'],
      line_items: [{ quantity: '1', price_data: { currency: 'jpy', unit_amount: '13579', product_data: { name: `POI Cloud ご利用料金(請求書 ${before.number})` } } }],
      payment_intent_data: { metadata: { invoice_id: invoiceId, invoice_number: before.number }, description: `POI Cloud 請求書 ${before.number}` },
      metadata: { invoice_id: invoiceId, attempt: '1', purpose: 'pay_invoice' },
      success_url: `http://console.test/billing/invoices/${invoiceId}?paid=1`,
      cancel_url: `http://console.test/billing/invoices/${invoiceId}`,
      locale: 'ja',
    });

    // A second click (or a reload) before paying: the same session, no new one.
    const again = await pay(payer, invoiceId);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual({ url, amount: 13579, attempt: 1 });
    expect(sessionsFor(invoiceId)).toHaveLength(1);

    const back = await payOnHostedPage(url, 'pm_card_visa');
    expect(back).toBe(`http://console.test/billing/invoices/${invoiceId}?paid=1`);
    const session = fake.sessions.get(/\/checkout\/(cs_[A-Za-z0-9_]+)/.exec(url)![1]!)!;
    const pi = fake.paymentIntents.get(String(session.payment_intent))!;
    expect(pi).toMatchObject({ amount: 13579, currency: 'jpy', metadata: { invoice_id: invoiceId } });

    // Stripe's events, duplicated and out of order: the session's completion first, the intent's twice.
    const completed = fake.event('checkout.session.completed', session);
    const succeeded = fake.event('payment_intent.succeeded', pi);
    expect((await fake.sendWebhook(completed, { duplicate: true })).map((d) => d.status)).toEqual([200, 200]);
    expect((await fake.sendWebhook(succeeded, { duplicate: true })).map((d) => d.status)).toEqual([200, 200]);
    expect((await fake.sendWebhook(completed))[0]!.status).toBe(200);

    const inv = await invoiceRow(invoiceId);
    expect(inv).toMatchObject({ status: 'paid', paid_yen: 13579, next_retry_at: null, last_payment_error: null, stripe_payment_intent_id: pi.id });
    const paid = await paymentsOf(invoiceId);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ method: 'card', amount_yen: 13579, fee_yen: 0, stripe_payment_intent_id: pi.id });
    expect(String(paid[0]!.receipt_number)).toMatch(/^R-\d{6}-\d{6}$/);
    expect(await auditActions(invoiceId)).toEqual(['invoice.pay_session_created', 'invoice.payment_recorded']);
    const [created] = await ctx.query<{ actor_id: string; after: Record<string, unknown> }>(`SELECT actor_id, after FROM audit_logs WHERE target_id = $1 AND action = 'invoice.pay_session_created'`, [invoiceId]);
    expect(created).toEqual({ actor_id: payer.id, after: { attempt: 1, session_id: session.id, url, amount: 13579 } });

    // The console shows it paid; nothing is owed any more.
    const detail = await api('GET', `/billing/invoices/${invoiceId}`, payer);
    expect(detail.json().data).toMatchObject({ status: 'paid', remaining: 0, payments: [{ method: 'card', amount: 13579, receipt_number: paid[0]!.receipt_number }] });
    const after = await pay(payer, invoiceId);
    expect(after.statusCode).toBe(409);
    expect(after.json().error.message).toBe(paymentMessages.nothingOwed);
  });

  it('a partially paid invoice: the session is for the remainder; a payment meanwhile starts a new attempt and closes the old session', async () => {
    const invoiceId = await issueInvoice(ctx, accountId, 10000, { status: 'partially_paid', attempts: 1, paid: 4000 }); // ¥11,000 − ¥4,000
    const first = await pay(payer, invoiceId);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ amount: 7000, attempt: 1 });
    expect(sessionsFor(invoiceId).at(-1)!.body).toMatchObject({ line_items: [{ price_data: { currency: 'jpy', unit_amount: '7000' } }] });

    // ¥2,000 more arrives (booked as a transfer on the books): the open ¥7,000 session no longer fits.
    await ctx.query('UPDATE invoices SET paid_yen = 6000 WHERE id = $1', [invoiceId]);
    const second = await pay(payer, invoiceId);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data).toMatchObject({ amount: 5000, attempt: 2 });
    expect(second.json().data.url).not.toBe(first.json().data.url);
    const bodies = sessionsFor(invoiceId);
    expect(bodies.map((r) => r.idempotencyKey)).toEqual([`invoice:${invoiceId}:pay:1`, `invoice:${invoiceId}:pay:2`]);
    expect(bodies[1]!.body).toMatchObject({ line_items: [{ price_data: { unit_amount: '5000' } }], metadata: { attempt: '2' } });
    const oldId = /\/checkout\/(cs_[A-Za-z0-9_]+)/.exec(first.json().data.url)![1]!;
    expect(fake.sessions.get(oldId)!.status).toBe('expired');

    fake.setAutoWebhooks(true);
    try {
      await payOnHostedPage(second.json().data.url, 'pm_card_visa');
      await fake.settled();
    } finally {
      fake.setAutoWebhooks(false);
    }
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 11000, next_retry_at: null });
    expect((await paymentsOf(invoiceId)).map((p) => [p.method, p.amount_yen])).toEqual([['card', 5000]]);
  });

  it('a completed session whose webhook has not come yet is booked on the next click, once', async () => {
    const invoiceId = await issueInvoice(ctx, accountId, 2000, { status: 'overdue', attempts: 4 }); // ¥2,200
    const { url } = (await pay(payer, invoiceId)).json().data;
    await payOnHostedPage(url, 'pm_card_visa'); // no webhooks delivered
    const res = await pay(payer, invoiceId);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.message).toBe(paymentMessages.nothingOwed);
    const session = fake.sessions.get(/\/checkout\/(cs_[A-Za-z0-9_]+)/.exec(url)![1]!)!;
    await fake.sendWebhook(fake.event('payment_intent.succeeded', fake.paymentIntents.get(String(session.payment_intent))!));
    await fake.sendWebhook(fake.event('checkout.session.completed', session));
    expect(await invoiceRow(invoiceId)).toMatchObject({ status: 'paid', paid_yen: 2200 });
    expect(await paymentsOf(invoiceId)).toHaveLength(1);
  });

  it('refuses what cannot be paid: paid, void, bank transfer (409), someone else’s invoice (404), no sign-in (401)', async () => {
    const paidId = await issueInvoice(ctx, accountId, 1000, { status: 'paid', paid: 1100 });
    const voidId = await issueInvoice(ctx, accountId, 1000, { status: 'void' });
    for (const id of [paidId, voidId]) {
      const res = await pay(payer, id);
      expect(res.statusCode).toBe(409);
      expect(res.json().error.message).toBe(paymentMessages.nothingOwed);
    }
    const transferId = await issueInvoice(ctx, accountId, 1000, { method: 'bank_transfer' });
    const transfer = await pay(payer, transferId);
    expect(transfer.statusCode).toBe(409);
    expect(transfer.json().error.message).toBe(paymentMessages.payByTransfer);

    const open = await issueInvoice(ctx, accountId, 1000, { status: 'overdue', attempts: 4 });
    const other = await ctx.newUser('individual', 'paynow-other');
    const res = await pay(other, open);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('請求書が見つかりません');
    expect((await pay(other, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await pay(other, 'not-a-uuid')).statusCode).toBe(400);
    expect((await pay(undefined, open)).statusCode).toBe(401);
    expect(sessionsFor(open)).toHaveLength(0);
    expect(sessionsFor(paidId).length + sessionsFor(voidId).length + sessionsFor(transferId).length).toBe(0);
  });
});

describe('a newly saved card pays what is overdue', () => {
  it('charges the overdue and the declined invoices once with the new card; the setup webhook afterwards charges nothing more', async () => {
    const user = await ctx.newUser('trial', 'newcard');
    await saveCard(user, 'upgrade_individual', 'pm_card_chargeDeclined');
    const accountId = String((await accountOf(user.id)).id);
    const overdue = await issueInvoice(ctx, accountId, 3000, { status: 'overdue', attempts: 4 }); // ¥3,300
    const declined = await issueInvoice(ctx, accountId, 1000, { attempts: 1 }); // ¥1,100, retry pending
    await ctx.query(`UPDATE invoices SET next_retry_at = '2099-01-01T00:00:00Z' WHERE id = $1`, [declined]);
    const untouched = await issueInvoice(ctx, accountId, 500); // never charged yet: the close's charge does it, not this path

    const sessionId = await saveCard(user, 'card', 'pm_card_visa');
    await ctx.app.payments.idle();
    const account = await accountOf(user.id);
    expect(account.card_last4).toBe('4242');
    for (const [id, total, attempt] of [[overdue, 3300, 5], [declined, 1100, 2]] as const) {
      expect(await invoiceRow(id)).toMatchObject({ status: 'paid', paid_yen: total, next_retry_at: null, last_payment_error: null, payment_attempts: attempt - 1 });
      expect((await paymentsOf(id)).map((p) => [p.method, p.amount_yen])).toEqual([['card', total]]);
      const reqs = fake.requestsTo('/v1/payment_intents').filter((r) => (r.body.metadata as Record<string, string>).invoice_id === id);
      expect(reqs.map((r) => [r.idempotencyKey, r.body.payment_method, r.body.amount])).toEqual([[`invoice:${id}:attempt:${attempt}`, account.card_payment_method_id, String(total)]]);
    }
    expect(await invoiceRow(untouched)).toMatchObject({ status: 'issued', paid_yen: 0 });

    // The setup session's webhook arrives after the console's completion: the card is the same, nothing is charged again.
    const before = fake.requestsTo('/v1/payment_intents').length;
    const [delivery] = await fake.sendWebhook(fake.event('checkout.session.completed', fake.sessions.get(sessionId)!));
    expect(delivery!.status).toBe(200);
    await ctx.app.payments.idle();
    expect(fake.requestsTo('/v1/payment_intents').length).toBe(before);
    expect(await paymentsOf(overdue)).toHaveLength(1);

    // The automatic retries never pick an overdue invoice.
    const stillOverdue = await issueInvoice(ctx, accountId, 800, { status: 'overdue', attempts: 4 });
    await ctx.query(`UPDATE invoices SET next_retry_at = '2000-01-01T00:00:00Z' WHERE id = $1`, [stillOverdue]);
    await ctx.app.payments.runDueRetries(new Date('2099-12-31T00:00:00Z'));
    expect(await invoiceRow(stillOverdue)).toMatchObject({ status: 'overdue', paid_yen: 0 });
  });
});

describe('mails promise only what happens', () => {
  it('declined with a retry, the last decline (overdue) and 3-D Secure point at the invoice page’s 「今すぐ支払う」', async () => {
    const user = await ctx.newUser('trial', 'mails');
    await saveCard(user, 'upgrade_individual', 'pm_card_chargeDeclined');
    const accountId = String((await accountOf(user.id)).id);
    const page = (id: string) => `http://console.test/billing/invoices/${id}`;

    const first = await issueInvoice(ctx, accountId, 1000, { issueDate: '2026-01-05' });
    expect(await ctx.app.payments.chargeInvoice(first)).toMatchObject({ outcome: 'declined', attempts: 1 });
    const retryMail = await mailTo(user.email, 'カード決済ができませんでした');
    expect(retryMail.text).toContain('2026-01-08 に同じカードで再度決済いたします。');
    expect(retryMail.text).toContain('請求書のページの「今すぐ支払う」ボタンから別のカードでお支払いいただくか、お支払い方法から新しいカードをご登録ください(ご登録のカードで直ちに決済いたします)。');
    expect(retryMail.text).toContain(page(first));
    expect(retryMail.html).toContain(page(first));

    const last = await issueInvoice(ctx, accountId, 1000, { attempts: 3 });
    expect(await ctx.app.payments.chargeInvoice(last)).toMatchObject({ outcome: 'declined', attempts: 4, overdue: true });
    expect(await invoiceRow(last)).toMatchObject({ status: 'overdue', next_retry_at: null });
    const overdueMail = await mailTo(user.email, 'お支払い期限を過ぎています');
    expect(overdueMail.subject).toBe(`【POI Cloud】お支払い期限を過ぎています(請求書 ${(await invoiceRow(last)).number})`);
    expect(overdueMail.text).toContain('カード決済の再試行をすべて終了したため、この請求書は支払期限超過となりました。自動での再決済は行いません。');
    expect(overdueMail.text).toContain('請求書のページの「今すぐ支払う」ボタンからカードでお支払いいただくか、お支払い方法から別のカードをご登録ください');
    expect(overdueMail.text).toContain(page(last));
    expect(overdueMail.text).not.toContain('再度決済いたします');

    const threeDs = await ctx.newUser('trial', 'mails3ds');
    await saveCard(threeDs, 'upgrade_individual', 'pm_card_authenticationRequired');
    const inv = await issueInvoice(ctx, String((await accountOf(threeDs.id)).id), 2000);
    expect(await ctx.app.payments.chargeInvoice(inv)).toMatchObject({ outcome: 'authentication_required' });
    const payNow = await mailTo(threeDs.email, 'お支払い手続きのお願い');
    expect(payNow.text).toContain(String((await invoiceRow(inv)).pay_now_url));
    expect(payNow.text).toContain('リンクの有効期限は24時間です。期限が切れた後は、請求書のページの「今すぐ支払う」ボタンからお支払いいただけます。');
    expect(payNow.text).toContain(`請求書のページ: ${page(inv)}`);
    for (const m of [retryMail, overdueMail, payNow]) {
      expect(m.text).not.toContain('新しいリンクをお送りします');
      expect(m.text).not.toContain('お問い合わせください');
    }
  });
});

describe('an administrator books a transfer on an overdue card invoice', () => {
  it('is booked (no 409) and settles the invoice; an issued card invoice is still refused', async () => {
    const user = await ctx.newUser('trial', 'cardtransfer');
    await saveCard(user, 'upgrade_individual', 'pm_card_chargeDeclined');
    const accountId = String((await accountOf(user.id)).id);
    const overdue = await issueInvoice(ctx, accountId, 5000, { status: 'overdue', attempts: 4 }); // ¥5,500
    const issuedCard = await issueInvoice(ctx, accountId, 5000, { attempts: 1 });
    // The transfers expected list it (the card one still in its retries is not there).
    const pending = async () => (await api('GET', '/admin/transfers/pending?limit=100', admin)).json().data.transfers as Array<{ invoice_id: string; remaining: number; status: string }>;
    expect((await pending()).filter((t) => [overdue, issuedCard].includes(t.invoice_id))).toEqual([expect.objectContaining({ invoice_id: overdue, remaining: 5500, status: 'overdue' })]);
    const res = await api('POST', `/admin/transfers/${overdue}/confirm`, admin, { received_on: '2026-01-20', received_amount: 5500, payer_name: 'テスト タロウ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ invoice: { status: 'paid', remaining: 0 }, payment: { method: 'bank_transfer', amount: 5500 }, credit_added: 0 });
    expect(await invoiceRow(overdue)).toMatchObject({ status: 'paid', paid_yen: 5500, next_retry_at: null });
    expect(await auditActions(overdue)).toEqual(['invoice.payment_recorded']);
    expect((await pending()).some((t) => t.invoice_id === overdue)).toBe(false);

    const refused = await api('POST', `/admin/transfers/${issuedCard}/confirm`, admin, { received_on: '2026-01-20', received_amount: 5500, payer_name: 'テスト タロウ' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(transferMessages.notBankTransfer);
  });
});

describe('without Stripe', () => {
  let plain: TestContext;
  beforeAll(async () => {
    plain = await createTestContext({ BILLING_JOBS: 'off' });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('answers 503 with the Japanese card-unavailable message', async () => {
    const user = await plain.newUser('individual', 'nostripe');
    expect((await plain.api('GET', '/billing/account', user)).statusCode).toBe(200);
    const [account] = await plain.query<{ id: string }>('SELECT id FROM billing_accounts WHERE user_id = $1', [user.id]);
    await plain.query(`UPDATE billing_accounts SET payment_method = 'card' WHERE id = $1`, [account!.id]);
    const id = await issueInvoice(plain, account!.id, 1000, { status: 'overdue', attempts: 4 });
    const res = await plain.api('POST', `/billing/invoices/${id}/pay`, user);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toBe(paymentMessages.cardUnavailable);
  });
});
