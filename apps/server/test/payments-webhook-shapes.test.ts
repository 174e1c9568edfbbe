import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { bearer, createTestContext, signIn, uniqueEmail, type TestContext } from './helpers';
import { startFakeStripe, type FakeStripe } from './support/fake-stripe';

/*
 * Correctly signed webhook bodies of a shape Stripe never sends must never answer
 * 5xx (Stripe retries those for days) and never write anything. A body that is not an event
 * envelope is a 400; an event we act on whose object has the wrong shape is acknowledged (200,
 * ignored) — see docs/resilience.md "Odd input gets a 4xx".
 */

let ctx: TestContext;
let fake: FakeStripe;
let accountId: string;
let invoiceId: string;

/** Posts exactly these bytes, signed with the webhook secret. */
const post = (payload: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: fake.webhookSecret }) },
    payload,
  });

const envelope = (type: string, object: unknown, extra: Record<string, unknown> = {}) => ({
  id: `evt_test_shape_${Math.random().toString(36).slice(2)}`,
  object: 'event',
  created: Math.floor(Date.now() / 1000),
  type,
  livemode: false,
  data: { object },
  ...extra,
});

const intent = (extra: Record<string, unknown> = {}) => ({
  id: `pi_test_shape_${Math.random().toString(36).slice(2)}`,
  object: 'payment_intent',
  amount: 1100,
  amount_received: 1100,
  currency: 'jpy',
  status: 'succeeded',
  metadata: { invoice_id: invoiceId },
  last_payment_error: null,
  ...extra,
});

/** What any webhook could have written: events stored, payments, invoice changes, audit rows. */
async function written() {
  const [row] = await ctx.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::int FROM provider_events) AS events, (SELECT count(*)::int FROM payments) AS payments,
            (SELECT count(*)::int FROM audit_logs) AS audits,
            (SELECT row_to_json(i)::text FROM invoices i WHERE id = $1) AS invoice,
            (SELECT row_to_json(b)::text FROM billing_accounts b WHERE id = $2) AS account`,
    [invoiceId, accountId],
  );
  return row;
}

beforeAll(async () => {
  fake = await startFakeStripe();
  ctx = await createTestContext({ ...fake.env(), BILLING_JOBS: 'off' });
  const email = uniqueEmail('shape');
  const s = await signIn(ctx, email);
  const start = await ctx.app.inject({ method: 'POST', url: '/console/v1/payment-method/checkout', headers: bearer(s.token), payload: { purpose: 'upgrade_individual' } });
  expect(start.statusCode, start.body).toBe(200);
  [{ id: accountId }] = (await ctx.query<{ id: string }>('SELECT id FROM billing_accounts WHERE user_id = $1', [s.user.id])) as [{ id: string }];
  const [inv] = await ctx.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot, number, issue_date, due_date, issued_at)
     VALUES ($1, 'correction', '2099-01', 'issued', '2099-01-01', '2099-01-31', 1000, 100, 1100, 'card', '{"name":"POI Cloud"}', '{"addressee":"テスト 太郎","honorific":"様"}', $2, '2099-02-01', '2099-02-28', now()) RETURNING id`,
    [accountId, `POI-209901-SHAPE-${Math.random().toString(36).slice(2, 6)}`],
  );
  invoiceId = inv!.id;
});

afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

describe('signed bodies that are not a Stripe event: 400, nothing written', () => {
  it.each([
    ['an array', '[1,2,3]'],
    ['null', 'null'],
    ['a string', '"evt"'],
    ['a number', '42'],
    ['no data', JSON.stringify({ id: 'evt_test_nodata', object: 'event', type: 'payment_intent.succeeded', created: 1 })],
    ['data null', JSON.stringify({ id: 'evt_test_datanull', object: 'event', type: 'payment_intent.succeeded', created: 1, data: null })],
    ['no id', JSON.stringify({ object: 'event', type: 'payment_intent.succeeded', created: 1, data: { object: {} } })],
    ['an id that is a number', JSON.stringify({ id: 7, object: 'event', type: 'customer.created', created: 1, data: { object: {} } })],
    ['no type', JSON.stringify({ id: 'evt_test_notype', object: 'event', created: 1, data: { object: {} } })],
    ['an id with a lone surrogate', '{"id":"evt_\\ud800","object":"event","type":"customer.created","created":1,"data":{"object":{"id":"cus_1"}}}'],
    ['a type with U+0000', '{"id":"evt_test_nul","object":"event","type":"customer.\\u0000","created":1,"data":{"object":{"id":"cus_1"}}}'],
    ['created as a string', JSON.stringify({ id: 'evt_test_created', object: 'event', type: 'customer.created', created: 'yesterday', data: { object: {} } })],
    ['data.object an array', JSON.stringify({ id: 'evt_test_arr', object: 'event', type: 'payment_intent.succeeded', created: 1, data: { object: [1, 2] } })],
    ['5,000-deep JSON', deep(5000)],
  ])('%s', async (_name, payload) => {
    const before = await written();
    const res = await post(payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    expect(await written()).toEqual(before);
  });
});

describe('events we act on whose object has the wrong shape: acknowledged (200), ignored, nothing written', () => {
  it.each([
    ['payment_failed with metadata.invoice_id "x"', () => envelope('payment_intent.payment_failed', intent({ status: 'requires_payment_method', metadata: { invoice_id: 'x' } }))],
    ['succeeded with metadata.invoice_id "x"', () => envelope('payment_intent.succeeded', intent({ metadata: { invoice_id: 'x' } }))],
    ['succeeded with the amount as a string', () => envelope('payment_intent.succeeded', intent({ amount: '1100', amount_received: '1100' }))],
    ['succeeded with a negative amount', () => envelope('payment_intent.succeeded', intent({ amount: -5, amount_received: -5 }))],
    ['succeeded with a fractional amount', () => envelope('payment_intent.succeeded', intent({ amount: 10.5, amount_received: 10.5 }))],
    ['succeeded with metadata null', () => envelope('payment_intent.succeeded', intent({ metadata: null }))],
    ['succeeded with metadata an array', () => envelope('payment_intent.succeeded', intent({ metadata: ['x'] }))],
    ['succeeded with no id', () => envelope('payment_intent.succeeded', { ...intent(), id: undefined })],
    ['succeeded with an object id of 5,000 characters', () => envelope('payment_intent.succeeded', intent({ id: `pi_${'x'.repeat(5000)}` }))],
    ['payment_failed with last_payment_error a string', () => envelope('payment_intent.payment_failed', intent({ status: 'requires_payment_method', last_payment_error: 'declined' }))],
    ['checkout.session.completed with metadata a string', () => envelope('checkout.session.completed', { id: 'cs_test_x', object: 'checkout.session', mode: 'setup', metadata: 'x' })],
    ['checkout.session.completed in payment mode with payment_intent a number', () => envelope('checkout.session.completed', { id: 'cs_test_y', object: 'checkout.session', mode: 'payment', payment_intent: 5 })],
    ['checkout.session.completed with a user_id that is no UUID', () =>
      envelope('checkout.session.completed', { id: 'cs_test_z', object: 'checkout.session', mode: 'setup', setup_intent: 'seti_x', metadata: { user_id: 'x', billing_account_id: 'y', purpose: 'card' } })],
  ])('%s', async (_name, make) => {
    const before = await written();
    const res = await post(JSON.stringify(make()));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ received: true, ignored: true });
    expect(await written()).toEqual(before);
    expect((await ctx.query('SELECT status, paid_yen FROM invoices WHERE id = $1', [invoiceId]))[0]).toMatchObject({ status: 'issued' });
  });

  it('still books a well-formed event after all that', async () => {
    const res = await post(JSON.stringify(envelope('payment_intent.succeeded', intent())));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ received: true, duplicate: false });
    expect((await ctx.query('SELECT status FROM invoices WHERE id = $1', [invoiceId]))[0]).toEqual({ status: 'paid' });
  });

  it('acknowledges an unknown type whatever its object holds (5,000-deep, odd ids), and stores it once', async () => {
    for (const payload of [
      JSON.stringify(envelope('customer.updated', { id: 'cus_test_odd', weird: [null, { a: '\u00e9' }] })),
      `{"id":"evt_test_deep","object":"event","type":"customer.created","created":1,"data":{"object":{"id":"cus_1","x":${deep(5000)}}}}`,
      // An object id that could not be stored is remembered as none.
      '{"id":"evt_test_oddobj","object":"event","type":"customer.created","created":1,"data":{"object":{"id":"cus_\\ud800"}}}',
    ]) {
      const res = await post(payload);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ received: true, duplicate: false });
    }
    expect(await ctx.query('SELECT object_id FROM provider_events WHERE id = $1', ['evt_test_oddobj'])).toEqual([{ object_id: null }]);
  });
});
