import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { uniqueEmail, useSession } from './support/auth';
import { BILLING_ADMIN_EMAIL, hasFaketime, startBillingServer, type BillingServer } from './support/billing-server';
import { extractCode, waitForMail } from './support/mailbox';

/*
 * The money flow in a real browser against a server of its own (fake Stripe, issuer and bank
 * configuration, a clock libfaketime can move): a trial user upgrades through the stand-in
 * Checkout page, searches through the public API, the month is closed, the card is charged and
 * the invoice with its PDF appears on /billing; a corporate application paid by invoice waits
 * for approval; /commerce shows every item.
 */

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

let billing: BillingServer;

test.describe.configure({ mode: 'serial' });
test.skip(!hasFaketime, 'needs libfaketime (Debian package faketime; CI installs it)');

test.beforeAll(async () => {
  billing = await startBillingServer();
});

test.afterAll(async () => {
  await billing?.stop();
});

async function signIn(request: APIRequestContext, email: string): Promise<LoginResponse> {
  const since = Date.now();
  const res = await request.post(`${billing.baseUrl}/console/v1/auth/request-otp`, { data: { email } });
  expect(res.ok(), await res.text()).toBe(true);
  const code = extractCode(await waitForMail(email, since));
  const verify = await request.post(`${billing.baseUrl}/console/v1/auth/verify-otp`, { data: { email, code } });
  expect(verify.ok(), await verify.text()).toBe(true);
  return (await verify.json()) as LoginResponse;
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
  await expectNoHorizontalScroll(page);
}

/** Days from now to 12:00 JST on the 2nd of the next Japan-time month. */
function daysIntoNextMonth(): number {
  const jstNow = new Date(Date.now() + 9 * 3600_000);
  const target = Date.UTC(jstNow.getUTCFullYear(), jstNow.getUTCMonth() + 1, 2, 3);
  return Math.ceil((target - Date.now()) / 86_400_000);
}

test('a trial user upgrades with a card, searches, and after the close pays the invoice shown on /billing with its PDF', async ({ page, request }) => {
  test.setTimeout(180_000);
  const base = billing.baseUrl;
  const admin = await signIn(request, BILLING_ADMIN_EMAIL);
  const created = await request.post(`${base}/console/v1/admin/datasets/assign`, {
    headers: auth(admin.token),
    data: { name: '東京の飲食店', price_per_search: 12.34, assigned_user_id: null, provider_user_id: null },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const datasetId = (await created.json()).data.dataset_id as string;
  expect((await request.post(`${base}/console/v1/poi/register`, { headers: auth(admin.token), data: { dataset_id: datasetId, name: '東京駅', latitude: 35.681236, longitude: 139.767125 } })).ok()).toBe(true);

  const email = uniqueEmail('billing');
  const user = await signIn(request, email);
  expect(user.user.account_type).toBe('trial');
  await useSession(page, user);

  // Upgrade: plans → final confirmation → the stand-in Checkout page → complete.
  await page.goto(`${base}/upgrade`);
  await expect(page.getByRole('heading', { level: 1, name: 'アカウントアップグレード' })).toBeVisible();
  await expect(page.getByText('現在のプラン').first()).toBeVisible();
  await shoot(page, 'billing-upgrade-plans');
  await expectAxeClean(page, '/upgrade plans');
  await page.getByRole('button', { name: '個人プランに申し込む' }).click();
  await expect(page.getByRole('heading', { name: 'お申し込み内容の確認' })).toBeVisible();
  await expect(page.getByRole('link', { name: /特定商取引法に基づく表記/ })).toBeVisible();
  await page.getByLabel('上記の内容に同意します').check();
  await shoot(page, 'billing-upgrade-confirm');
  await page.getByRole('button', { name: 'カードを登録して申し込む' }).click();
  await page.waitForURL(/\/checkout\/cs_/);
  await page.getByRole('button', { name: /成功するカード/ }).click();
  await page.waitForURL(/\/payment-method\/complete\?session_id=/);
  await expect(page.getByRole('heading', { level: 1, name: 'カード登録完了' })).toBeVisible();
  await expect(page.getByText('4242').first()).toBeVisible();
  await expect(page.getByText('個人プランへのアップグレードが完了しました')).toBeVisible();
  await page.reload();
  await expect(page.getByText('4242').first()).toBeVisible();

  // The saved card on /payment-method; billing details apply to future invoices.
  await page.goto(`${base}/payment-method`);
  await expect(page.getByRole('heading', { level: 1, name: 'お支払い方法' })).toBeVisible();
  await expect(page.getByText(/VISA •••• 4242/)).toBeVisible();
  await expectAxeClean(page, '/payment-method');
  await page.getByLabel(/^宛名/).fill('山田 太郎');
  await page.getByLabel('郵便番号').fill('150-0001');
  await page.getByRole('button', { name: '請求先情報を保存' }).click();
  await expect(page.getByText('請求先情報を保存しました')).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'payment-method-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Searches through the public API with a key of the upgraded user.
  const key = (await (await request.post(`${base}/console/v1/api-keys`, { headers: auth(user.token), data: { name: '請求テスト' } })).json()).data.key as string;
  for (let i = 0; i < 7; i++) {
    const res = await request.get(`${base}/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } });
    expect(res.status()).toBe(200);
  }
  // The meter writes searches at least every second.
  const currentMonth = async () => (await (await request.get(`${base}/console/v1/billing/current`, { headers: auth(user.token) })).json()).data;
  await expect.poll(async () => (await currentMonth()).total_estimate, { timeout: 10_000 }).toBe(94);
  const month = await currentMonth();
  expect(month).toMatchObject({ subtotal: 86, tax_estimate: 8, total_estimate: 94 });

  // The month ends: the server's clock moves into the next month and an administrator closes it.
  await billing.setClockOffsetDays(daysIntoNextMonth());
  const admin2 = await signIn(request, BILLING_ADMIN_EMAIL);
  const closed = await request.post(`${base}/console/v1/admin/billing/close`, { headers: auth(admin2.token), data: { year_month: month.year_month } });
  expect(closed.ok(), await closed.text()).toBe(true);
  expect((await closed.json()).data.issued).toBeGreaterThanOrEqual(1);

  // Sessions idle for a week expire: sign in again after the clock moved.
  const again = await signIn(request, email);
  await page.evaluate(
    ([tokenKey, userKey, token, u]) => {
      window.localStorage.setItem(tokenKey, token);
      window.localStorage.setItem(userKey, u);
    },
    [STORAGE_TOKEN_KEY, STORAGE_USER_KEY, again.token, JSON.stringify(again.user)] as const,
  );
  await page.goto(`${base}/billing`);
  await expect(page.getByRole('heading', { level: 1, name: '請求・お支払い' })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: /POI-\d{6}-\d{6}/ }).first();
  await expect(row).toContainText('¥94');
  await expect(row).toContainText('支払済', { timeout: 15_000 });
  await shoot(page, 'billing-page');
  await expectAxeClean(page, '/billing');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'billing-page-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await row.getByRole('link').first().click();
  await expect(page.getByRole('heading', { level: 1, name: /請求書 POI-/ })).toBeVisible();
  await expect(page.getByText('10%対象').first()).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '請求書PDF' }).click()]);
  expect(download.suggestedFilename()).toMatch(/POI-\d{6}-\d{6}.*\.pdf$/);
  await shoot(page, 'billing-invoice');
});

test('a corporate application paid by invoice waits for approval', async ({ page, request }) => {
  const user = await signIn(request, uniqueEmail('corp'));
  await useSession(page, user);
  await page.goto(`${billing.baseUrl}/upgrade`);
  await page.getByRole('button', { name: '法人プランを申し込む' }).click();
  await page.getByLabel(/^会社名\s*\*?$/).fill('株式会社テスト商事');
  await page.getByLabel('会社名(カナ)').fill('カブシキガイシャテストショウジ');
  await page.getByLabel('郵便番号').fill('100-0005');
  await page.getByLabel('住所').fill('東京都千代田区丸の内1-1-1');
  await page.getByLabel('電話番号').fill('03-1234-5678');
  await page.getByLabel('請求担当者名').fill('経理 花子');
  await page.getByLabel(/請求書送付先メールアドレス/).first().fill('keiri@example.com');
  await page.getByLabel(/請求書払い/).check();
  await page.getByRole('button', { name: '確認へ進む' }).click();
  await page.getByLabel('上記の内容に同意します').check();
  await page.getByRole('button', { name: '申し込む' }).click();
  await expect(page.getByText('審査中').first()).toBeVisible();
  await page.reload();
  await expect(page.getByText('審査中').first()).toBeVisible();
  await expect(page.getByText('株式会社テスト商事').first()).toBeVisible();
  await shoot(page, 'billing-upgrade-pending');
});

test('/commerce shows every item of the legal notice', async ({ page }) => {
  await page.goto(`${billing.baseUrl}/commerce`);
  await expect(page.getByRole('heading', { level: 1, name: '特定商取引法に基づく表記' })).toBeVisible();
  for (const term of ['販売事業者', '運営責任者', '所在地', '電話番号', 'メールアドレス', '販売価格', '商品代金以外の必要料金', '支払方法', '支払時期', '役務の提供時期', '返品・キャンセル', '動作環境']) {
    await expect(page.getByText(term, { exact: false }).first()).toBeVisible();
  }
  for (const value of ['POI Cloud株式会社', '代表取締役 山田太郎', '東京都千代田区丸の内1-1-1', '03-1234-5678', 'billing@poi-cloud.example', 'T1234567890123']) {
    await expect(page.getByText(value, { exact: false }).first()).toBeVisible();
  }
  await expect(page.getByText('準備中')).toHaveCount(0);
  await expectAxeClean(page, '/commerce');
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot(page, 'commerce-390');
});
