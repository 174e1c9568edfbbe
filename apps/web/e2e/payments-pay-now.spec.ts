import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { startFakeStripe, type FakeStripe } from '../../server/test/support/fake-stripe';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { uniqueEmail, useSession } from './support/auth';
import { ISSUER_ENV } from './support/billing-server';
import { E2E_PORT } from './support/env';
import { pgServerForSpec } from './support/pg-server';

/*
 * Paying an overdue card invoice on demand in a real browser: the invoice list shows
 * 「支払期限超過」, the invoice page's 「今すぐ支払う」 leads to the stand-in Stripe Checkout page,
 * the success card pays, the browser comes back to the invoice page, which shows 「支払済」 once
 * the webhook booked it; the server then holds exactly one payment for the invoice.
 *
 * The server runs on a PostgreSQL database of its own (E2E_PG_URL, by default the local
 * postgres://postgres@127.0.0.1:5432, as CI's route tests use) so that the spec can put the
 * invoice in the state four declined charges leave it in (overdue), which the route tests
 * reach through the retries (payments-stripe.test.ts).
 */

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
let stripe: FakeStripe | undefined;
const { base, db, signIn } = pgServerForSpec('paynow', E2E_PORT + 11, async (base) => {
  stripe = await startFakeStripe({ webhookUrl: `${base}/webhooks/stripe`, autoWebhooks: true });
  return { ...stripe.env(), ...ISSUER_ENV, BILLING_JOBS: 'off' };
}, async () => {
  await stripe?.stop();
});

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
  await expectNoHorizontalScroll(page);
}

test('an overdue card invoice is paid with 「今すぐ支払う」 through Checkout, once', async ({ page, request }) => {
  test.setTimeout(120_000);
  const email = uniqueEmail('paynow');
  const user = await signIn(request, email);

  // Upgrades with a card that the off-session charges decline (the hosted page's button, by form post).
  const start = await request.post(`${base}/console/v1/payment-method/checkout`, { headers: auth(user.token), data: { purpose: 'upgrade_individual' } });
  expect(start.ok(), await start.text()).toBe(true);
  const checkoutUrl = (await start.json()).data.url as string;
  const submitted = await request.post(`${checkoutUrl}/submit`, { form: { card: 'pm_card_chargeDeclined' }, maxRedirects: 0 });
  expect(submitted.status()).toBe(303);
  const sessionId = new URL(submitted.headers().location!).searchParams.get('session_id')!;
  const done = await request.post(`${base}/console/v1/payment-method/complete`, { headers: auth(user.token), data: { session_id: sessionId } });
  expect(done.ok(), await done.text()).toBe(true);

  // An issued card invoice as four declined charges leave it: overdue, no retry left.
  const { rows: accounts } = await db.query<{ id: string; customer_number: string }>('SELECT id, customer_number FROM billing_accounts WHERE user_id = $1', [user.user.id]);
  const number = `POI-209901-${String(Date.now() % 1_000_000).padStart(6, '0')}`;
  // As the close makes one: the draft, its lines, then number and state (lines of an issued invoice are immutable).
  const { rows: created } = await db.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, 'monthly', '2099-01', 'draft', '2099-01-01', '2099-01-31', 12345, 1234, 13579, 'card', $2, $3) RETURNING id`,
    [accounts[0]!.id, JSON.stringify({ name: ISSUER_ENV.ISSUER_NAME, registration_number: ISSUER_ENV.ISSUER_REGISTRATION_NUMBER }), JSON.stringify({ addressee: 'ペイ 太郎', honorific: '様', customer_number: accounts[0]!.customer_number })],
  );
  const invoiceId = created[0]!.id;
  await db.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', 12345, 100, 12345)`, [invoiceId]);
  await db.query(
    `UPDATE invoices SET number = $2, status = 'overdue', issue_date = '2099-02-01', due_date = '2099-02-01', issued_at = now(), payment_attempts = 4,
       last_payment_error = 'カードが拒否されました。カード会社にお問い合わせいただくか、別のカードをご登録ください。' WHERE id = $1`,
    [invoiceId, number],
  );

  await useSession(page, user);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}/billing`);
  const row = page.getByRole('row').filter({ hasText: number });
  await expect(row).toContainText('支払期限超過');
  await expect(row).toContainText('カードが拒否されました');
  await shoot(page, 'pay-now-billing-list');
  await expectAxeClean(page, '/billing with an overdue card invoice');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'pay-now-billing-list-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await row.getByRole('link', { name: /今すぐ支払う/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: `請求書 ${number}` })).toBeVisible();
  const payButton = page.getByRole('button', { name: '今すぐ支払う' });
  await expect(payButton).toBeVisible();
  await expect(page.getByText('この請求書はお支払い期限を過ぎています。未払い残高 ¥13,579 をカードでお支払いいただけます。')).toBeVisible();
  await shoot(page, 'pay-now-invoice');
  await expectAxeClean(page, '/billing/invoices/:id overdue');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'pay-now-invoice-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await payButton.click();
  await page.waitForURL(/\/checkout\/cs_/);
  await expect(page.getByText('お支払い金額: ¥13,579')).toBeVisible();
  await page.getByRole('button', { name: /成功するカード/ }).click();
  await page.waitForURL(`${base}/billing/invoices/${invoiceId}?paid=1`);
  await expect(page.getByRole('status').filter({ hasText: /お支払いを確認しています…|お支払いが完了しました/ })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'お支払いが完了しました。ありがとうございます。' })).toBeVisible();
  await expect(page.locator('dd').getByText('支払済')).toBeVisible();
  await expect(page.getByRole('button', { name: '今すぐ支払う' })).toHaveCount(0);
  await expect(page.getByText(/領収書番号 R-\d{6}-\d{6}/)).toBeVisible();
  await shoot(page, 'pay-now-paid');
  await expectAxeClean(page, '/billing/invoices/:id paid');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'pay-now-paid-390');

  // The server holds exactly one card payment of the whole amount; a reload changes nothing.
  await page.reload();
  await expect(page.locator('dd').getByText('支払済')).toBeVisible();
  const detail = await (await request.get(`${base}/console/v1/billing/invoices/${invoiceId}`, { headers: auth(user.token) })).json();
  expect(detail.data).toMatchObject({ status: 'paid', remaining: 0, paid: 13579 });
  expect(detail.data.payments).toHaveLength(1);
  expect(detail.data.payments[0]).toMatchObject({ method: 'card', amount: 13579 });
  const again = await request.post(`${base}/console/v1/billing/invoices/${invoiceId}/pay`, { headers: auth(user.token) });
  expect(again.status()).toBe(409);
});
