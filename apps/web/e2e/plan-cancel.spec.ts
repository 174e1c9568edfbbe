import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { auth, makeProvider } from './support/api';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';

// Leaving the individual plan from /billing, and 総額表示 with the cancellation terms on /upgrade.

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function asType(request: APIRequestContext, accountType: 'individual' | 'trial', prefix: string): Promise<LoginResponse> {
  const login = await signInByApi(request, uniqueEmail(prefix));
  if (accountType === 'trial') return login;
  const res = await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(adminSession().token), data: { account_type: accountType, reason: 'テスト' } });
  expect(res.ok(), await res.text()).toBe(true);
  return { ...login, user: { ...login.user, account_type: accountType } };
}

async function shoot(page: Page, name: string) {
  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(viewport);
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: path.join(SCREENS, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** '2026年11月30日' and '2026年12月1日' for the month we are in (Japan time). */
function cancellationDays() {
  const end = monthRange(yearMonthOf(new Date())).end;
  const jst = (d: Date) => new Date(d.getTime() + 9 * 3600_000);
  const label = (d: Date) => `${d.getUTCFullYear()}年${d.getUTCMonth() + 1}月${d.getUTCDate()}日`;
  return { last: label(jst(new Date(end.getTime() - 1))), first: label(jst(end)) };
}

test('an individual schedules the cancellation on /billing, sees the dates, and undoes it', async ({ page, request }) => {
  const login = await asType(request, 'individual', 'plancancel');
  await useSession(page, login);
  const { last, first } = cancellationDays();

  await page.goto('/billing');
  const section = page.getByRole('region', { name: 'プランの変更・解約' });
  await expect(section).toContainText('個人プラン');
  await expect(section).toContainText('アカウントそのものの削除(退会)をご希望の場合は、お問い合わせください');
  // 総額表示: the estimate leads with the tax-inclusive figure.
  await expect(page.getByTestId('current-total-with-tax')).toContainText('税込 ¥0（税抜 ¥0）');
  await expectAxeClean(page, '/billing (individual)');

  await section.getByRole('button', { name: '月末で解約する(トライアルに戻す)' }).click();
  const dialog = page.getByRole('dialog', { name: '個人プランを月末で解約しますか?' });
  await expect(dialog).toContainText(`${last} 23:59 まで現在のプランをご利用いただけます。${first.replace(/^\d+年/, '')}からトライアルになります。当月分のご利用料金は翌月1日に請求されます。`);
  await expectAxeClean(page, '/billing cancellation dialog');
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(SCREENS, 'plan-cancel-dialog-phone.png') });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SCREENS, 'plan-cancel-dialog-desktop.png') });
  await dialog.getByRole('button', { name: '月末で解約する' }).click();

  const scheduled = section.getByTestId('scheduled-cancellation');
  await expect(scheduled).toContainText(`解約を予約しています。${last} 23:59 まで個人プランをご利用いただけます。${first}からトライアルになります。`);
  await expect(dialog).toBeHidden();
  const state = await (await request.get('/console/v1/billing/plan', { headers: auth(login.token) })).json();
  expect(state.data.scheduled_change.effective_at).toBe(monthRange(yearMonthOf(new Date())).end.toISOString());
  await page.reload();
  await expect(scheduled).toBeVisible();
  await expectAxeClean(page, '/billing with a scheduled cancellation');
  await section.scrollIntoViewIfNeeded();
  await shoot(page, 'plan-cancel-scheduled');

  await section.getByRole('button', { name: '解約を取り消す' }).click();
  await expect(section.getByRole('button', { name: '月末で解約する(トライアルに戻す)' })).toBeVisible();
  await expect(scheduled).toBeHidden();
  const after = await (await request.get('/console/v1/billing/plan', { headers: auth(login.token) })).json();
  expect(after.data.scheduled_change).toBeNull();
});

test('/upgrade: the individual confirmation shows 税込 prices and the cancellation terms, keeps its step in the URL, and opens /commerce in a new tab', async ({ page, request }) => {
  const login = await asType(request, 'trial', 'planupgrade');
  await useSession(page, login);
  await page.goto('/upgrade');
  const individualCard = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /個人プラン/ }) });
  await expect(individualCard).toContainText('税込 ¥0.11（税抜 ¥0.10）');
  await expect(individualCard).toContainText('価格は税込(消費税10%)で、括弧内が税抜です。');
  await expectAxeClean(page, '/upgrade plans');
  await shoot(page, 'upgrade-plans');

  await page.getByRole('button', { name: '個人プランに申し込む' }).click();
  await expect(page).toHaveURL(/\/upgrade\?plan=individual&step=confirm$/);
  const prices = page.getByTestId('individual-prices');
  await expect(prices).toContainText('基本料金 1検索あたり 税込 ¥0.11（税抜 ¥0.10）');
  await expect(prices).toContainText('例: 無料枠を超えた検索が月に10,000回の場合、基本料金は税抜 ¥1,000、税込 ¥1,100');
  await expect(page.getByRole('main')).toContainText('解約は月末に反映され、翌月1日 0:00(日本時間)からトライアルになります。');
  await expect(page.getByRole('main')).toContainText('提供済みの検索の返金はありません。');

  await page.reload();
  await expect(page.getByRole('heading', { name: 'お申し込み内容の確認' })).toBeVisible();
  await expect(page.getByTestId('individual-prices')).toContainText('税込');

  const commerce = page.getByRole('link', { name: '特定商取引法に基づく表記（新しいタブで開きます）' });
  await expect(commerce).toHaveAttribute('target', '_blank');
  await expect(commerce).toHaveAttribute('rel', 'noopener');
  const [tab] = await Promise.all([page.context().waitForEvent('page'), commerce.click()]);
  await tab.waitForLoadState();
  expect(new URL(tab.url()).pathname).toBe('/commerce');
  await tab.close();
  await expect(page).toHaveURL(/step=confirm/);
  await expectAxeClean(page, '/upgrade individual confirmation');
  await shoot(page, 'upgrade-confirm');

  await page.goBack();
  await expect(page).toHaveURL(/\/upgrade$/);
  await expect(page.getByRole('heading', { name: 'プラン比較' })).toBeVisible();
});

test('a corporate owner asks to cancel on /billing; the administrator sees 「解約申請中」 on /admin/corporate', async ({ page, request, browser }) => {
  const owner = await asType(request, 'trial', 'plancorp');
  const company = `株式会社解約申請${Date.now().toString(36)}`;
  const created = await request.post('/console/v1/admin/corporate/create', {
    headers: auth(adminSession().token),
    data: {
      company_name: company,
      company_name_kana: 'カブシキガイシャカイヤクシンセイ',
      department: null,
      postal_code: '1000001',
      address: '東京都千代田区千代田1-1',
      phone: '03-1234-5678',
      billing_contact_name: '請求 花子',
      billing_emails: ['keiri@example.com'],
      corporate_number: null,
      registration_number: null,
      payment_method: 'bank_transfer',
      owner_user_id: owner.user.id,
      reason: 'テスト',
    },
  });
  expect(created.ok(), await created.text()).toBe(true);
  await useSession(page, { ...owner, user: { ...owner.user, account_type: 'corporate' } });
  await page.goto('/billing');
  const section = page.getByRole('region', { name: 'プランの変更・解約' });
  await section.getByRole('button', { name: '解約を申請する' }).click();
  const dialog = page.getByRole('dialog', { name: '法人アカウントの解約を申請しますか?' });
  await expect(dialog).toContainText('月末で解約の処理をいたします');
  await dialog.getByRole('button', { name: '解約を申請する' }).click();
  await expect(section.getByTestId('corporate-cancellation')).toContainText('解約申請中');
  await expectAxeClean(page, '/billing (corporate owner, cancellation requested)');

  const adminContext = await browser.newContext({ viewport: DESKTOP });
  const admin = await adminContext.newPage();
  await useSession(admin, adminSession());
  await admin.goto('/admin/corporate');
  const panel = admin.getByRole('region', { name: /解約申請中の法人アカウント/ });
  await expect(panel.getByRole('listitem').filter({ hasText: company })).toContainText('解約申請中');
  await expectAxeClean(admin, '/admin/corporate with a cancellation request');
  await shoot(admin, 'admin-corporate-cancellation');
  await adminContext.close();
});

test('marketplace cards show trial and individual viewers 税込 prices', async ({ page, request }) => {
  const provider = await makeProvider(request, { prefix: 'planprov' });
  const name = `税込表示データ${Date.now().toString(36)}`;
  const res = await request.post('/console/v1/datasets/public/create', { headers: auth(provider.token), data: { name, price_per_search: 1.33 } });
  expect(res.ok(), await res.text()).toBe(true);
  const login = await asType(request, 'individual', 'planmarket');
  await useSession(page, login);
  await page.goto('/marketplace');
  const card = page.getByRole('article', { name });
  await expect(card).toContainText('税込 ¥1.463（税抜 ¥1.33）');
  await card.scrollIntoViewIfNeeded();
  await expectAxeClean(page, '/marketplace (individual)');
  await shoot(page, 'marketplace-tax-included');
  await card.getByRole('link', { name: '詳細を見る' }).click();
  await expect(page.getByText('1検索あたりの税込額は目安です', { exact: false })).toBeVisible();
  await expectAxeClean(page, '/marketplace/:id (individual)');
});
