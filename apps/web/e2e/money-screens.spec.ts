import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { signInByApi, uniqueEmail, useSession } from './support/auth';
import { ISSUER_ENV } from './support/billing-server';
import { E2E_PORT } from './support/env';
import { pgServerForSpec } from './support/pg-server';

/*
 * The admin money screens in a real browser: the dashboard's 「カード決済の失敗 n件」 leads to a
 * user list of exactly those n users, and the activity list (dashboard and user detail) shows
 * Japanese labels only, no stored codes. Card failures are states the route tests reach through
 * Stripe retries (payments-stripe.test.ts); here the spec writes them into a PostgreSQL database
 * of its own (E2E_PG_URL, by default the local postgres://postgres@127.0.0.1:5432).
 */

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const ADMIN = `money-admin-${process.pid}@e2e.poi-cloud.test`;
/** A code as the server stores it (`billing_month`, `partially_paid`, `invoice.card_payment_failed`). */
const RAW_CODE = /[a-z]+_[a-z]+|\b(?:invoice|billing|user|corporate|plan|budget|pricing)\.[a-z]/;
const { base, db, signIn } = pgServerForSpec('money', E2E_PORT + 13, async () => ({ ...ISSUER_ENV, ADMIN_EMAILS: ADMIN, BILLING_JOBS: 'off' }));

/** An issued card invoice of the user's billing account; `failed` sets the last charge's error, as a decline does. */
async function cardInvoice(user: LoginResponse, failed: boolean, status: 'issued' | 'overdue' | 'paid' = 'issued'): Promise<string> {
  // The user's card billing account (as a saved card leaves it), made once.
  await db.query(
    `INSERT INTO billing_accounts (kind, user_id, customer_number, addressee, honorific, payment_method)
     VALUES ('individual', $1, $2, '宛名', '様', 'card') ON CONFLICT DO NOTHING`,
    [user.user.id, String(2_000_000 + Math.floor(Math.random() * 7_000_000))],
  );
  const { rows: accounts } = await db.query<{ id: string; customer_number: string }>('SELECT id, customer_number FROM billing_accounts WHERE user_id = $1', [user.user.id]);
  const { id, customer_number } = accounts[0]!;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO invoices (billing_account_id, kind, year_month, status, period_start, period_end, subtotal_yen, tax_yen, total_yen, payment_method, issuer_snapshot, recipient_snapshot)
     VALUES ($1, 'correction', '2099-01', 'draft', '2099-01-01', '2099-01-31', 1000, 100, 1100, 'card', $2, $3) RETURNING id`,
    [id, JSON.stringify({ name: ISSUER_ENV.ISSUER_NAME }), JSON.stringify({ addressee: '宛名', honorific: '様', customer_number })],
  );
  const invoiceId = rows[0]!.id;
  await db.query(`INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen) VALUES ($1, 1, 'base_fee', '基本料金', 1000, 100, 1000)`, [invoiceId]);
  await db.query(`UPDATE invoices SET number = $2, status = $3, issue_date = '2099-02-01', due_date = '2099-02-01', issued_at = now(), last_payment_error = $4 WHERE id = $1`, [
    invoiceId,
    `POI-209901-${String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0')}`,
    status,
    failed ? 'カードが拒否されました。カード会社にお問い合わせいただくか、別のカードをご登録ください。' : null,
  ]);
  if (failed) {
    // What the charge writes (charging.ts), as the system.
    await db.query(
      `INSERT INTO audit_logs (action, target_type, target_id, before, after) VALUES ('invoice.card_payment_failed', 'invoice', $1, '{"status":"issued","payment_attempts":0}', $2)`,
      [invoiceId, JSON.stringify({ status, payment_attempts: 1, reason: 'declined' })],
    );
  }
  return invoiceId;
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
  await expectNoHorizontalScroll(page);
}

async function expectNoRawCodes(page: Page, where: string) {
  const text = await page.getByRole('region', { name: where }).innerText();
  expect(text).not.toMatch(RAW_CODE);
}

test('the failed-card link lists exactly the failing users; the activity lists show Japanese labels only', async ({ page, request }) => {
  test.setTimeout(180_000);
  const admin = await signIn(request, ADMIN);
  const failing = [await signIn(request, uniqueEmail('cardfail')), await signIn(request, uniqueEmail('cardfail')), await signIn(request, uniqueEmail('cardfail'))];
  const paid = await signIn(request, uniqueEmail('cardpaid'));
  const fine = await signIn(request, uniqueEmail('cardfine'));
  await cardInvoice(failing[0]!, true);
  await cardInvoice(failing[0]!, true, 'overdue');
  await cardInvoice(failing[1]!, true, 'overdue');
  await cardInvoice(failing[2]!, true);
  await cardInvoice(paid, true, 'paid');
  await cardInvoice(fine, false);
  // An admin change with a reason, and the month's close as the job writes it.
  const changed = await request.post(`${base}/console/v1/admin/users/${failing[0]!.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: 'individual', reason: '請求の確認のため' } });
  expect(changed.ok(), await changed.text()).toBe(true);
  await db.query(`INSERT INTO audit_logs (action, target_type, target_id, after) VALUES ('billing.month_closed', 'billing_month', '2099-01', '{"invoices":6}')`);

  await useSession(page, admin);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${base}/admin/dashboard`);
  const link = page.getByRole('link', { name: /カード決済の失敗/ });
  await expect(link).toContainText('3件');
  await expect(page.getByRole('region', { name: '最近の操作' })).toContainText('カード決済の失敗');
  await expect(page.getByRole('region', { name: '最近の操作' })).toContainText('システム → 請求月 2099-01');
  await expect(page.getByRole('region', { name: '最近の操作' })).toContainText('理由: カードが拒否されました');
  await expectNoRawCodes(page, '最近の操作');
  await shoot(page, 'money-dashboard');
  await expectAxeClean(page, '/admin/dashboard with failed card payments');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'money-dashboard-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await link.click();
  await page.waitForURL(`${base}/admin/users?card_failed=1`);
  await expect(page.getByRole('checkbox', { name: /カード決済に失敗している請求書があるユーザーのみ/ })).toBeChecked();
  const table = page.getByRole('table', { name: 'ユーザー一覧' });
  await expect(table.getByRole('row')).toHaveCount(1 + 3);
  for (const u of failing) await expect(table).toContainText(u.user.email);
  await expect(table).not.toContainText(paid.user.email);
  await expect(table).not.toContainText(fine.user.email);
  await shoot(page, 'money-users-card-failed');
  await expectAxeClean(page, '/admin/users?card_failed=1');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'money-users-card-failed-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The user detail: invoices and the audit trail in Japanese.
  await table.getByRole('button', { name: new RegExp(failing[0]!.user.email.replace(/[.+]/g, '\\$&')) }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('支払期限超過');
  await expect(dialog.getByRole('region', { name: '操作履歴' })).toContainText('種別・権限の変更');
  await expect(dialog.getByRole('region', { name: '操作履歴' })).toContainText('理由: 請求の確認のため');
  await expect(dialog.getByRole('region', { name: '請求書' })).not.toContainText(/partially_paid|overdue|issued/);
  expect(await dialog.getByRole('region', { name: '操作履歴' }).innerText()).not.toMatch(RAW_CODE);
  await shoot(page, 'money-user-detail');
  await expectAxeClean(page, '/admin/users detail with the audit trail');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'money-user-detail-390');
});

/*
 * The suite's own server runs without ISSUER_*, BANK_* and Stripe: /commerce then claims nothing
 * (no 「未設定」, no 「登録申請中」), and the corporate application's card choice is disabled with
 * the card-unavailable message.
 */
test('/commerce without configuration claims nothing; the corporate form says card payments are unavailable', async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/commerce');
  await expect(page.getByRole('heading', { level: 1, name: '特定商取引法に基づく表記' })).toBeVisible();
  await expect(page.getByRole('status')).toContainText('この表記は準備中です');
  const body = await page.locator('main').innerText();
  expect(body).not.toContain('未設定');
  expect(body).not.toContain('登録申請中');
  await expect(page.getByText('適格請求書発行事業者登録番号')).toHaveCount(0);
  await expect(page.getByText('販売価格')).toBeVisible();
  await shoot(page, 'money-commerce-unset');
  await expectAxeClean(page, '/commerce without configuration');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'money-commerce-unset-390');

  const trial = await signInByApi(request, uniqueEmail('corp-nocard'));
  await useSession(page, trial);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/upgrade');
  await page.getByRole('button', { name: '法人プランを申し込む' }).click();
  const card = page.getByRole('radio', { name: 'クレジットカード' });
  await expect(card).toBeDisabled();
  await expect(card).toHaveAccessibleDescription('カード決済は現在ご利用いただけません。銀行振込(法人のお客様)をご利用いただくか、時間をおいてお試しください。');
  await expect(page.getByRole('radio', { name: '請求書払い(銀行振込)' })).toBeChecked();
  await shoot(page, 'money-corporate-form-nocard');
  await expectAxeClean(page, '/upgrade corporate form without card payments');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'money-corporate-form-nocard-390');
});
