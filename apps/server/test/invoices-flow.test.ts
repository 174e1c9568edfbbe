import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, signIn, uniqueEmail, type TestContext } from './helpers';
import { startFakeStripe, type FakeStripe } from './support/fake-stripe';

/*
 * The money path end to end, as its parts meet in the app: a trial user upgrades by saving a
 * card, searches a paid dataset through the public API, the month is closed, the issued invoice
 * is charged off-session at once (the close's afterIssue), the fake Stripe's webhook and the
 * charge's own answer record one payment, and the user reads the paid invoice, its PDF and the
 * receipt. Amounts are asserted to the yen.
 */

let ctx: TestContext;
let fake: FakeStripe;
let adminToken: string;

const api: TestContext['api'] = (...args) => ctx.api(...args);

beforeAll(async () => {
  fake = await startFakeStripe({ autoWebhooks: true });
  ctx = await createTestContext({ ...fake.env(), ISSUER_NAME: 'POI Cloud株式会社', ISSUER_REGISTRATION_NUMBER: 'T1234567890123' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  fake.setWebhookUrl(`http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}/webhooks/stripe`);
  adminToken = (await ctx.admin()).token;
});

afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

describe('upgrade, search, close, charge, receipt', () => {
  it('bills exactly the searches served and records one card payment for the invoice', async () => {
    const email = uniqueEmail('flow');
    const user = await signIn(ctx, email);
    expect(user.user.account_type).toBe('trial');

    // Upgrade: Checkout in setup mode, the hosted page's success card, then the complete call.
    const start = await api('POST', '/payment-method/checkout', user.token, { purpose: 'upgrade_individual' });
    expect(start.statusCode, start.body).toBe(200);
    const url: string = start.json().data.url;
    const submit = await fetch(`${url}/submit`, { method: 'POST', body: new URLSearchParams({ card: 'pm_card_visa' }), redirect: 'manual' });
    const sessionId = new URL(submit.headers.get('location')!).searchParams.get('session_id')!;
    const done = await api('POST', '/payment-method/complete', user.token, { session_id: sessionId });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.account_type).toBe('individual');

    // A paid dataset (¥12.34 per search) and 7 searches through the public API.
    const ds = await api('POST', '/admin/datasets/assign', adminToken, { name: '請求フロー', price_per_search: 12.34, assigned_user_id: null, provider_user_id: null });
    const datasetId: string = ds.json().data.dataset_id;
    const key: string = (await api('POST', '/api-keys', user.token, { name: '請求フロー' })).json().data.key;
    for (let i = 0; i < 7; i++) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${datasetId}`, headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, res.body).toBe(200);
    }
    // A malformed request is refused and never billed.
    expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?dataset_id=${datasetId}&lat=35`, headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(400);
    await ctx.app.usageMeter.flush();

    const current = (await api('GET', '/billing/current', user.token)).json().data;
    // 7 × 1234 sen = 8638 sen → ¥86 (floor); the base fee is within the free searches.
    expect(current.datasets).toEqual([expect.objectContaining({ dataset_id: datasetId, searches: 7, amount: 86 })]);
    expect(current.subtotal).toBe(86);
    expect(current.tax_estimate).toBe(8);
    expect(current.total_estimate).toBe(94);

    const result = await ctx.app.billingClose.service.closeMonth(current.year_month);
    expect(result.issued).toBeGreaterThanOrEqual(1);
    await ctx.app.payments.idle();
    await fake.settled();
    await ctx.app.payments.idle();

    const list = (await api('GET', '/billing/invoices', user.token)).json().data;
    expect(list.total).toBe(1);
    const invoice = list.invoices[0];
    expect(invoice).toMatchObject({ subtotal: 86, tax: 8, total: 94, status: 'paid', paid: 94, remaining: 0, payment_method: 'card' });
    expect(invoice.number).toMatch(/^POI-\d{6}-\d{6}$/);

    // Stripe was asked for whole yen once, with the invoice's idempotency key.
    const intents = fake.requestsTo('/v1/payment_intents').filter((r) => r.method === 'POST' && (r.body as { metadata?: { invoice_id?: string } }).metadata?.invoice_id === invoice.id);
    expect(intents).toHaveLength(1);
    expect(intents[0]!.body).toMatchObject({ amount: '94', currency: 'jpy' });
    expect(intents[0]!.idempotencyKey).toBe(`invoice:${invoice.id}:attempt:1`);

    const detail = (await api('GET', `/billing/invoices/${invoice.id}`, user.token)).json().data;
    expect(detail.payments).toHaveLength(1);
    expect(detail.payments[0]).toMatchObject({ method: 'card', amount: 94 });
    const pdf = await api('GET', `/billing/invoices/${invoice.id}/pdf`, user.token);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const receipt = await api('GET', `/billing/payments/${detail.payments[0].id}/receipt.pdf`, user.token);
    expect(receipt.statusCode).toBe(200);

    // Closing the month again issues nothing and charges nothing more.
    await ctx.app.billingClose.service.closeMonth(current.year_month);
    await ctx.app.payments.idle();
    const again = fake.requestsTo('/v1/payment_intents').filter((r) => r.method === 'POST' && (r.body as { metadata?: { invoice_id?: string } }).metadata?.invoice_id === invoice.id);
    expect(again).toHaveLength(1);
    expect((await api('GET', '/billing/invoices', user.token)).json().data.total).toBe(1);
  });
});
