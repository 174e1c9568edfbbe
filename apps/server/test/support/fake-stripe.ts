import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

/*
 * A small, stateful stand-in for the Stripe API (docs/billing.md "Testing without internet"), on
 * 127.0.0.1 and a random port, reached by the real SDK through STRIPE_API_BASE: the SDK's real
 * form encoding, idempotency keys and error shapes. It keeps customers, Checkout Sessions (setup
 * and payment mode) with a stand-in hosted page, SetupIntents, PaymentMethods, PaymentIntents and
 * Products; replays idempotency keys; records every request it received (tests assert bodies);
 * and sends webhooks signed with the SDK's own test-header helper, with duplicates and delays on
 * demand.
 *
 * Browser suite: start it in Playwright's global setup with `{ autoWebhooks: true, webhookUrl:
 * `${base}/webhooks/stripe` }` and pass `fake.env()` to the server. The hosted page
 * (GET /checkout/:id) has one button per test card (accessible names below, e.g.
 * `page.getByRole('button', { name: /成功するカード/ })`) and 「キャンセルして戻る」. Specs in other
 * processes read what the fake received at GET /_fake/requests and change a saved card's
 * behaviour with POST /_fake/payment_methods/:id/outcome (form body outcome=success|declined|…).
 *
 * Test cards (the buttons of the hosted page, and what `completeCheckout` takes):
 *   pm_card_visa                    → charges succeed
 *   pm_card_chargeDeclined          → off-session charges are declined (card_error / card_declined)
 *   pm_card_authenticationRequired  → off-session charges need 3-D Secure (card_error / authentication_required)
 */

export type CardOutcome = 'success' | 'declined' | 'authentication_required';

export const TEST_CARDS: Record<string, { brand: string; last4: string; outcome: CardOutcome; label: string }> = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'success', label: '成功するカード (Visa 4242)' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'declined', label: '拒否されるカード (Visa 0002)' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'authentication_required', label: '3Dセキュア認証が必要なカード (Visa 3184)' },
};

export interface RecordedRequest {
  method: string;
  path: string;
  /** Decoded form body (nested objects as Stripe's bracket notation describes them) or query. */
  body: Record<string, unknown>;
  raw: string;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
  at: number;
}

export interface WebhookDelivery {
  status: number;
  body: string;
}

type Obj = Record<string, unknown> & { id: string };

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding (`a[b][0]=c`) back into nested objects; arrays come back as arrays. */
export function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/[[\]]+/).filter(Boolean);
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length && keys.every((k, i) => String(i) === k)) return keys.map((k) => arrays(o[k]));
    return Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
  };
  return arrays(root) as Record<string, unknown>;
}

class StripeFail extends Error {
  constructor(
    readonly status: number,
    readonly error: Record<string, unknown>,
  ) {
    super(String(error.message));
  }
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface FakeStripeOptions {
  /** Port on 127.0.0.1 (default: a random free one). */
  port?: number;
  /** Where sendWebhook posts (the app's /webhooks/stripe); can be set later. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Send checkout.session.completed / payment_intent.* events by itself as things happen (browser suite). */
  autoWebhooks?: boolean;
}

export async function startFakeStripe(options: FakeStripeOptions = {}) {
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const setupIntents = new Map<string, Obj>();
  const paymentMethods = new Map<string, Obj & { outcome: CardOutcome }>();
  const paymentIntents = new Map<string, Obj>();
  const products = new Map<string, Obj>();
  const idempotency = new Map<string, { bodyHash: string; path: string; status: number; response: unknown }>();
  const requests: RecordedRequest[] = [];
  const events: Obj[] = [];
  const deliveries: WebhookDelivery[] = [];
  const state = {
    webhookUrl: options.webhookUrl,
    webhookSecret: options.webhookSecret ?? 'whsec_fake_0123456789abcdef',
    autoWebhooks: options.autoWebhooks ?? false,
  };
  const pending = new Set<Promise<unknown>>();
  let base = '';

  // ------------------------------------------------------------------ objects

  function createPaymentMethod(token: string, customer: string | null): Obj & { outcome: CardOutcome } {
    const card = TEST_CARDS[token];
    if (!card) throw new StripeFail(400, { type: 'invalid_request_error', code: 'resource_missing', message: `No such PaymentMethod: '${token}'`, param: 'payment_method' });
    const pm = {
      id: newId('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, funding: 'credit', country: 'JP' },
      customer,
      created: now(),
      livemode: false,
      metadata: {},
      outcome: card.outcome,
    };
    paymentMethods.set(pm.id, pm);
    return pm;
  }

  const publicPm = (pm: Obj & { outcome?: CardOutcome }) => {
    const { outcome: _outcome, ...rest } = pm;
    return rest;
  };

  function expandSession(s: Obj, expand: string[]): Obj {
    const out: Obj = { ...s };
    if (expand.includes('setup_intent') || expand.includes('setup_intent.payment_method')) {
      const si = s.setup_intent ? setupIntents.get(String(s.setup_intent)) : undefined;
      out.setup_intent = si ? expandSetupIntent(si, expand.includes('setup_intent.payment_method') ? ['payment_method'] : []) : (s.setup_intent ?? null);
    }
    if (expand.includes('payment_intent')) out.payment_intent = s.payment_intent ? (paymentIntents.get(String(s.payment_intent)) ?? null) : null;
    return out;
  }

  function expandSetupIntent(si: Obj, expand: string[]): Obj {
    const pm = si.payment_method ? paymentMethods.get(String(si.payment_method)) : undefined;
    return expand.includes('payment_method') && pm ? { ...si, payment_method: publicPm(pm) } : si;
  }

  function cardError(code: 'card_declined' | 'authentication_required', pi: Obj, pm: Obj): StripeFail {
    const message = code === 'card_declined' ? 'Your card was declined.' : 'Your card was declined. This transaction requires authentication.';
    const lastPaymentError = { type: 'card_error', code, decline_code: code === 'card_declined' ? 'generic_decline' : 'authentication_required', message, payment_method: publicPm(pm as Obj & { outcome: CardOutcome }) };
    Object.assign(pi, { last_payment_error: lastPaymentError });
    return new StripeFail(402, { ...lastPaymentError, payment_intent: pi, charge: `ch_test_${randomBytes(8).toString('hex')}`, doc_url: `https://stripe.com/docs/error-codes/${code.replace('_', '-')}` });
  }

  /** Creates (and, with confirm, confirms) a PaymentIntent the way an off-session charge behaves. */
  function createPaymentIntent(b: Record<string, unknown>): Obj {
    const amount = String(b.amount ?? '');
    if (!/^\d+$/.test(amount)) throw new StripeFail(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', message: `Invalid integer: ${amount}` });
    const currency = String(b.currency ?? '');
    if (currency !== 'jpy') throw new StripeFail(400, { type: 'invalid_request_error', code: 'parameter_invalid', param: 'currency', message: `This fake only takes jpy (got '${currency}')` });
    if (Number(amount) < 50) throw new StripeFail(400, { type: 'invalid_request_error', code: 'amount_too_small', param: 'amount', message: 'Amount must be at least ¥50 jpy' });
    const pi: Obj = {
      id: newId('pi'),
      object: 'payment_intent',
      amount: Number(amount),
      amount_received: 0,
      currency,
      customer: b.customer ?? null,
      payment_method: b.payment_method ?? null,
      metadata: b.metadata ?? {},
      description: b.description ?? null,
      status: 'requires_confirmation',
      created: now(),
      livemode: false,
      last_payment_error: null,
      next_action: null,
    };
    paymentIntents.set(pi.id, pi);
    if (String(b.confirm) !== 'true') return pi;
    const pm = pi.payment_method ? paymentMethods.get(String(pi.payment_method)) : undefined;
    if (!pm) {
      pi.status = 'requires_payment_method';
      throw new StripeFail(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: `No such PaymentMethod: '${String(pi.payment_method)}'` });
    }
    if (pi.customer && pm.customer !== pi.customer) {
      throw new StripeFail(400, { type: 'invalid_request_error', code: 'payment_method_invalid_parameter', message: 'The PaymentMethod does not belong to the Customer.' });
    }
    if (pm.outcome === 'success') {
      Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, latest_charge: `ch_test_${randomBytes(8).toString('hex')}` });
      autoEvent('payment_intent.succeeded', pi);
      return pi;
    }
    if (pm.outcome === 'declined') {
      pi.status = 'requires_payment_method';
      const err = cardError('card_declined', pi, pm);
      autoEvent('payment_intent.payment_failed', pi);
      throw err;
    }
    Object.assign(pi, { status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: `${base}/authenticate/${pi.id}`, return_url: null } } });
    const err = cardError('authentication_required', pi, pm);
    autoEvent('payment_intent.payment_failed', pi);
    throw err;
  }

  // ------------------------------------------------------------------ events and webhooks

  function event(type: string, object: Obj, opts: { created?: number; id?: string } = {}): Obj {
    const evt: Obj = {
      id: opts.id ?? newId('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      created: opts.created ?? now(),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: structuredClone(object) },
    };
    events.push(evt);
    return evt;
  }

  function autoEvent(type: string, object: Obj) {
    if (!state.autoWebhooks) return;
    const p = sendWebhook(event(type, object)).catch(() => undefined);
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  /** Signs the event as Stripe does and posts it to the app; answers each delivery's status and body. */
  async function sendWebhook(evt: Obj, opts: { duplicate?: boolean; delayMs?: number; signature?: string; url?: string } = {}): Promise<WebhookDelivery[]> {
    const url = opts.url ?? state.webhookUrl;
    if (!url) throw new Error('fake Stripe: no webhook URL set');
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    const payload = JSON.stringify(evt);
    const out: WebhookDelivery[] = [];
    for (let i = 0; i < (opts.duplicate ? 2 : 1); i++) {
      const signature = opts.signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: state.webhookSecret });
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' }, body: payload });
      const delivery = { status: res.status, body: await res.text() };
      deliveries.push(delivery);
      out.push(delivery);
    }
    return out;
  }

  // ------------------------------------------------------------------ the hosted Checkout page

  function checkoutPage(s: Obj, error?: string): string {
    const setup = s.mode === 'setup';
    const amount = typeof s.amount_total === 'number' ? `<p>お支払い金額: <strong>¥${s.amount_total.toLocaleString('ja-JP')}</strong></p>` : '';
    const buttons = Object.entries(TEST_CARDS)
      .map(([token, c]) => `<button type="submit" name="card" value="${token}" aria-label="${escapeHtml(c.label)}">${escapeHtml(c.label)}</button>`)
      .join('\n');
    return `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>Stripe Checkout (テスト)</title></head>
<body style="font-family:sans-serif;max-width:480px;margin:40px auto">
<h1>${setup ? 'カードの登録' : 'お支払い'} (テスト用 Stripe Checkout)</h1>
${amount}
${error ? `<p role="alert" style="color:#b91c1c">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/checkout/${escapeHtml(s.id)}/submit" style="display:flex;flex-direction:column;gap:8px">
${buttons}
</form>
<form method="post" action="/checkout/${escapeHtml(s.id)}/cancel"><button type="submit">キャンセルして戻る</button></form>
</body></html>`;
  }

  function completeCheckout(s: Obj, token: string): { redirect?: string; error?: string } {
    if (s.status !== 'open') return { redirect: String(s.success_url).replace('{CHECKOUT_SESSION_ID}', s.id) };
    const customer = s.customer ? String(s.customer) : null;
    const pm = createPaymentMethod(token, customer);
    if (s.mode === 'setup') {
      const si: Obj = { id: newId('seti'), object: 'setup_intent', status: 'succeeded', usage: 'off_session', customer, payment_method: pm.id, metadata: s.metadata ?? {}, created: now(), livemode: false };
      setupIntents.set(si.id, si);
      Object.assign(s, { status: 'complete', setup_intent: si.id });
      autoEvent('checkout.session.completed', s);
    } else {
      // On the hosted page the customer is present: 3-D Secure passes; a declined card stays declined.
      if (pm.outcome === 'declined') return { error: 'カードが拒否されました。別のカードをお試しください。' };
      const pid = (s.payment_intent_data ?? {}) as Record<string, unknown>;
      const pi: Obj = {
        id: newId('pi'),
        object: 'payment_intent',
        amount: s.amount_total,
        amount_received: s.amount_total,
        currency: s.currency,
        customer,
        payment_method: pm.id,
        metadata: pid.metadata ?? {},
        status: 'succeeded',
        created: now(),
        livemode: false,
        last_payment_error: null,
        next_action: null,
      };
      paymentIntents.set(pi.id, pi);
      Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: pi.id });
      autoEvent('payment_intent.succeeded', pi);
      autoEvent('checkout.session.completed', s);
    }
    return { redirect: String(s.success_url).replace('{CHECKOUT_SESSION_ID}', s.id) };
  }

  // ------------------------------------------------------------------ routing

  function need<T>(map: Map<string, T>, id: string, what: string): T {
    const o = map.get(id);
    if (!o) throw new StripeFail(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'` });
    return o;
  }

  function api(method: string, path: string, b: Record<string, unknown>): Obj | Record<string, unknown> {
    const expand = Array.isArray(b.expand) ? (b.expand as string[]) : [];
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const c: Obj = { id: newId('cus'), object: 'customer', email: b.email ?? null, name: b.name ?? null, metadata: b.metadata ?? {}, invoice_settings: { default_payment_method: null }, created: now(), livemode: false };
      customers.set(c.id, c);
      return c;
    }
    if ((m = path.match(/^\/v1\/customers\/([^/]+)$/))) {
      const c = need(customers, m[1]!, 'customer');
      if (method === 'POST') {
        const settings = b.invoice_settings as Record<string, unknown> | undefined;
        if (settings && 'default_payment_method' in settings) (c.invoice_settings as Record<string, unknown>).default_payment_method = settings.default_payment_method || null;
        if (b.metadata) c.metadata = { ...(c.metadata as object), ...(b.metadata as object) };
        if (b.email !== undefined) c.email = b.email;
        if (b.name !== undefined) c.name = b.name;
      }
      return c;
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (!['setup', 'payment'].includes(String(b.mode))) throw new StripeFail(400, { type: 'invalid_request_error', param: 'mode', message: 'mode must be setup or payment' });
      if (!b.success_url) throw new StripeFail(400, { type: 'invalid_request_error', param: 'success_url', message: 'Missing required param: success_url.' });
      if (b.customer) need(customers, String(b.customer), 'customer');
      let amountTotal: number | null = null;
      let currency: unknown = b.currency ?? null;
      if (b.mode === 'payment') {
        const items = (b.line_items ?? []) as Array<Record<string, unknown>>;
        amountTotal = 0;
        for (const item of items) {
          const pd = (item.price_data ?? {}) as Record<string, unknown>;
          if (!/^\d+$/.test(String(pd.unit_amount))) throw new StripeFail(400, { type: 'invalid_request_error', param: 'line_items[0][price_data][unit_amount]', message: 'Invalid integer' });
          amountTotal += Number(pd.unit_amount) * Number(item.quantity ?? 1);
          currency = pd.currency;
        }
      }
      const id = newId('cs');
      const s: Obj = {
        id,
        object: 'checkout.session',
        mode: b.mode,
        status: 'open',
        payment_status: b.mode === 'setup' ? 'no_payment_required' : 'unpaid',
        url: `${base}/checkout/${id}`,
        customer: b.customer ?? null,
        currency,
        amount_total: amountTotal,
        success_url: b.success_url,
        cancel_url: b.cancel_url ?? null,
        metadata: b.metadata ?? {},
        payment_intent_data: b.payment_intent_data ?? null,
        setup_intent: null,
        payment_intent: null,
        created: now(),
        expires_at: b.expires_at ? Number(b.expires_at) : now() + 24 * 3600,
        livemode: false,
      };
      sessions.set(id, s);
      return { ...s, payment_intent_data: undefined };
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)\/expire$/))) {
      const s = need(sessions, m[1]!, 'checkout.session');
      if (s.status !== 'open') throw new StripeFail(400, { type: 'invalid_request_error', message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(s.status)}".` });
      Object.assign(s, { status: 'expired', url: null });
      return { ...s, payment_intent_data: undefined };
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/))) {
      const s = need(sessions, m[1]!, 'checkout.session');
      return { ...expandSession(s, expand), payment_intent_data: undefined };
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/setup_intents\/([^/]+)$/))) return expandSetupIntent(need(setupIntents, m[1]!, 'setup_intent'), expand);
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_methods\/([^/]+)$/))) return publicPm(need(paymentMethods, m[1]!, 'payment_method'));
    if (method === 'POST' && (m = path.match(/^\/v1\/payment_methods\/([^/]+)\/detach$/))) {
      const pm = need(paymentMethods, m[1]!, 'payment_method');
      if (!pm.customer) throw new StripeFail(400, { type: 'invalid_request_error', code: 'payment_method_unexpected_state', message: 'The payment method you provided is not attached to a customer so detachment is impossible.' });
      for (const c of customers.values()) {
        const settings = c.invoice_settings as Record<string, unknown>;
        if (settings.default_payment_method === pm.id) settings.default_payment_method = null;
      }
      pm.customer = null;
      return publicPm(pm);
    }
    if (method === 'POST' && (m = path.match(/^\/v1\/payment_methods\/([^/]+)\/attach$/))) {
      const pm = need(paymentMethods, m[1]!, 'payment_method');
      pm.customer = need(customers, String(b.customer), 'customer').id;
      return publicPm(pm);
    }
    if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(b);
    if (method === 'GET' && (m = path.match(/^\/v1\/payment_intents\/([^/]+)$/))) return need(paymentIntents, m[1]!, 'payment_intent');
    if (method === 'POST' && path === '/v1/products') {
      if (!b.name) throw new StripeFail(400, { type: 'invalid_request_error', param: 'name', message: 'Missing required param: name.' });
      const p: Obj = { id: newId('prod'), object: 'product', name: b.name, description: b.description ?? null, metadata: b.metadata ?? {}, active: true, created: now(), livemode: false };
      products.set(p.id, p);
      return p;
    }
    if ((m = path.match(/^\/v1\/products\/([^/]+)$/))) {
      const p = need(products, m[1]!, 'product');
      if (method === 'POST') Object.assign(p, { ...(b.name ? { name: b.name } : {}), ...(b.active !== undefined ? { active: String(b.active) === 'true' } : {}), ...(b.metadata ? { metadata: { ...(p.metadata as object), ...(b.metadata as object) } } : {}) });
      return p;
    }
    throw new StripeFail(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers });
    res.end(JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const path = url.pathname;

    // Inspection for tests in other processes (the browser suite's specs): what was received.
    if (method === 'GET' && path === '/_fake/requests') {
      send(res, 200, { requests, events, deliveries });
      return;
    }
    let m: RegExpMatchArray | null;
    if (method === 'POST' && (m = path.match(/^\/_fake\/payment_methods\/([^/]+)\/outcome$/))) {
      const pm = paymentMethods.get(m[1]!);
      const outcome = new URLSearchParams(raw).get('outcome') as CardOutcome | null;
      if (!pm || !outcome || !['success', 'declined', 'authentication_required'].includes(outcome)) {
        send(res, 404, { error: { type: 'invalid_request_error', message: 'no such payment method or outcome' } });
        return;
      }
      pm.outcome = outcome;
      send(res, 200, publicPm(pm));
      return;
    }

    // The stand-in hosted page (the browser suite clicks it).
    if ((m = path.match(/^\/checkout\/([^/]+)(?:\/(submit|cancel))?$/))) {
      const s = sessions.get(m[1]!);
      if (!s) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html lang="ja"><body><p>このセッションは存在しません。</p></body></html>');
        return;
      }
      if (method === 'GET' && !m[2]) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(checkoutPage(s));
        return;
      }
      if (method === 'POST' && m[2] === 'cancel') {
        res.writeHead(303, { location: String(s.cancel_url ?? s.success_url) });
        res.end();
        return;
      }
      if (method === 'POST' && m[2] === 'submit') {
        const token = String(new URLSearchParams(raw).get('card') ?? 'pm_card_visa');
        const result = completeCheckout(s, token);
        if (result.error) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(checkoutPage(s, result.error));
          return;
        }
        res.writeHead(303, { location: result.redirect! });
        res.end();
        return;
      }
    }

    const body = method === 'GET' || method === 'DELETE' ? decodeForm(url.search.slice(1)) : decodeForm(raw);
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method, path, body, raw, idempotencyKey, stripeVersion: req.headers['stripe-version'] as string | undefined, at: Date.now() });

    const auth = req.headers.authorization ?? '';
    if (!/^Bearer sk_(test|live)_\S+$/.test(auth)) {
      send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
      return;
    }
    if (method === 'POST' && idempotencyKey) {
      const bodyHash = createHash('sha256').update(`${path}\n${raw}`).digest('hex');
      const seen = idempotency.get(idempotencyKey);
      if (seen) {
        if (seen.bodyHash !== bodyHash) {
          send(res, 400, { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.` } });
          return;
        }
        send(res, seen.status, seen.response, { 'idempotency-key': idempotencyKey, 'idempotent-replayed': 'true' });
        return;
      }
      const { status, response } = run(method, path, body);
      idempotency.set(idempotencyKey, { bodyHash, path, status, response });
      send(res, status, response, { 'idempotency-key': idempotencyKey });
      return;
    }
    const { status, response } = run(method, path, body);
    send(res, status, response);
  }

  function run(method: string, path: string, body: Record<string, unknown>): { status: number; response: unknown } {
    try {
      return { status: 200, response: structuredClone(api(method, path, body)) };
    } catch (err) {
      if (err instanceof StripeFail) return { status: err.status, response: { error: structuredClone(err.error) } };
      return { status: 500, response: { error: { type: 'api_error', message: String(err) } } };
    }
  }

  let server: Server = createServer((req, res) => void handle(req, res).catch((err) => send(res, 500, { error: { type: 'api_error', message: String(err) } })));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;

  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  return {
    /** STRIPE_API_BASE for the app. */
    url: base,
    port,
    /** The environment that points the app at this fake (add STRIPE_WEBHOOK_SECRET as you like). */
    env: (): Record<string, string> => ({ STRIPE_SECRET_KEY: 'sk_test_fake_0123456789', STRIPE_API_BASE: base, STRIPE_WEBHOOK_SECRET: state.webhookSecret }),
    webhookSecret: state.webhookSecret,
    /** Every API request received (the hosted page's form posts are not API requests). */
    requests,
    /** The requests to one path (e.g. '/v1/payment_intents'), optionally one method. */
    requestsTo: (path: string | RegExp, method = 'POST') => requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))),
    customers,
    sessions,
    setupIntents,
    paymentMethods,
    paymentIntents,
    products,
    /** Idempotency keys seen (key → the path it was used on). */
    idempotencyKeys: () => [...idempotency.entries()].map(([key, v]) => ({ key, path: v.path, status: v.status })),
    events,
    deliveries,
    setWebhookUrl(url: string) {
      state.webhookUrl = url;
    },
    setAutoWebhooks(on: boolean) {
      state.autoWebhooks = on;
    },
    /** Completes a Checkout Session as the hosted page's button would; answers the redirect URL. */
    completeCheckout(sessionId: string, token: keyof typeof TEST_CARDS | string = 'pm_card_visa'): string {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`fake Stripe: no session ${sessionId}`);
      const result = completeCheckout(s, token);
      if (result.error) throw new Error(result.error);
      return result.redirect!;
    },
    /** Changes how a saved card behaves from now on (e.g. a declined card that later succeeds). */
    setCardOutcome(paymentMethodId: string, outcome: CardOutcome) {
      const pm = paymentMethods.get(paymentMethodId);
      if (!pm) throw new Error(`fake Stripe: no payment method ${paymentMethodId}`);
      pm.outcome = outcome;
    },
    /** A Stripe event around an object (created = now unless given). */
    event,
    sendWebhook,
    /** Waits for the webhooks the fake sent by itself (autoWebhooks). */
    settled: async () => {
      while (pending.size) await Promise.all([...pending]);
    },
    /** Stops answering (a "Stripe is down" test); restart() listens again on the same port. */
    stop: closeServer,
    async restart() {
      server = createServer((req, res) => void handle(req, res).catch((err) => send(res, 500, { error: { type: 'api_error', message: String(err) } })));
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: closeServer,
  };
}
export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;
