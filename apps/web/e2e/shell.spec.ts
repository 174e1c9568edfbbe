import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { waitForMail } from './support/mailbox';
import { OWN_DISABLED_FEATURES, PLAYWRIGHT_DISABLED_FEATURES } from '../playwright.config';

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');


test('the browser runs with the features Playwright turns off, and without the omnibox pop-ups', async ({ page, browser }) => {
  // playwright.config repeats Playwright's --disable-features list in its own (Chromium keeps the
  // last switch): every feature Playwright passes, and ours, must be off in the running browser.
  await page.goto('chrome://version/?show-variations-cmd');
  const text = await page.locator('body').innerText();
  const commandLine = /Command Line\s+(.*)/.exec(text)?.[1] ?? '';
  const passedByPlaywright = (/--disable-features=(\S+)/.exec(commandLine)?.[1] ?? '').split(',');
  expect(passedByPlaywright.length).toBeGreaterThan(5);
  const effective = (/--disable-features="([^"]*)"/.exec(/Command-line Variations\s+(.*)/.exec(text)?.[1] ?? '')?.[1] ?? '').split(',');
  expect(effective).toEqual(expect.arrayContaining([...passedByPlaywright, ...OWN_DISABLED_FEATURES]));
  expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(expect.arrayContaining(passedByPlaywright));
  const targets = (await (await browser.newBrowserCDPSession()).send('Target.getTargets')).targetInfos;
  expect(targets.filter((t) => t.url.includes('omnibox-popup'))).toEqual([]);
});

test.describe('application shell', () => {
  test('side menu follows the roles: a trial user sees neither revenue nor admin', async ({ page, request }) => {
    const email = uniqueEmail('trial');
    await useSession(page, await signInByApi(request, email));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/dashboard');
    const nav = page.getByRole('navigation', { name: 'サイドメニュー' });
    for (const item of ['ダッシュボード', 'APIキー', '使用量', 'POIデータセット', 'POI管理', '公開データセット', '請求・お支払い', 'お支払い方法', 'プロフィール']) {
      await expect(nav.getByRole('link', { name: item, exact: true })).toBeVisible();
    }
    await expect(nav.getByRole('link', { name: '収益レポート' })).toHaveCount(0);
    await expect(nav.getByRole('link', { name: 'ユーザー管理' })).toHaveCount(0);
    // Footer: trial badge, initials from the e-mail, the guest fallback name and the address.
    await expect(nav.getByText('トライアル')).toBeVisible();
    await expect(nav.getByText('ゲスト')).toBeVisible();
    await expect(nav.getByText(email)).toBeVisible();
    await expect(page.getByRole('button', { name: 'メニューを開く' })).toBeHidden();
    await expect(page.getByRole('button', { name: 'お知らせ' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'POI Cloud' }).first()).toHaveAttribute('href', '/dashboard');
    await page.screenshot({ path: `${SCREENS}/dashboard-1280.png`, fullPage: true });
  });

  test('an admin sees the revenue and admin groups and the admin badge', async ({ page }) => {
    await useSession(page, adminSession());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/dashboard');
    const nav = page.getByRole('navigation', { name: 'サイドメニュー' });
    await expect(nav.getByRole('link', { name: '収益レポート' })).toBeVisible();
    for (const item of ['ユーザー管理', '法人アカウント', '振込確認', '収益集計', '料金設定']) {
      await expect(nav.getByRole('link', { name: item })).toBeVisible();
    }
    await page.getByRole('button', { name: 'ユーザーメニュー' }).click();
    const menu = page.getByRole('menu');
    await expect(menu.locator('..').getByText('管理者権限')).toBeVisible();
    for (const item of ['プロフィール', 'APIキー', '請求・お支払い', 'APIドキュメント', 'ログアウト']) {
      await expect(menu.getByRole('menuitem', { name: item })).toBeVisible();
    }
    await expect(menu.getByRole('menuitem', { name: 'APIドキュメント' })).toHaveAttribute('target', '_blank');
    await page.screenshot({ path: `${SCREENS}/admin-menu-1280.png` });
    await page.keyboard.press('Escape');
    await expect(page.getByRole('menu')).toHaveCount(0);
  });

  test('mobile: the drawer opens from the menu button and closes on navigation', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('mobile')));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/dashboard');
    await expect(page.getByRole('navigation', { name: 'サイドメニュー' })).toBeHidden();
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: `${SCREENS}/dashboard-390.png`, fullPage: true });

    await page.getByRole('button', { name: 'メニューを開く' }).click();
    const drawer = page.getByRole('dialog', { name: 'メニュー' });
    await expect(drawer).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/drawer-390.png` });
    await drawer.getByRole('link', { name: 'プロフィール', exact: true }).first().click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(drawer).toBeHidden();

    await page.getByRole('button', { name: 'メニューを開く' }).click();
    await expect(drawer).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expectNoHorizontalScroll(page);
  });

  test('every route has its Japanese title', async ({ page }) => {
    await useSession(page, adminSession());
    const titles: Array<[string, string]> = [
      ['/dashboard', 'ダッシュボード'],
      ['/api-keys', 'APIキー管理'],
      ['/usage', '使用量'],
      ['/datasets', 'POIデータセット管理'],
      ['/poi', 'POI管理'],
      ['/marketplace', '公開データセット'],
      ['/billing', '請求・お支払い'],
      ['/profile', 'プロフィール'],
      ['/upgrade', 'アカウントアップグレード'],
      ['/payment-method', 'お支払い方法'],
      // Opened without a Checkout session: the title says the registration failed (カード登録完了 only on success).
      ['/payment-method/complete', 'カード登録を完了できませんでした'],
      ['/revenue', '収益レポート'],
      ['/admin/dashboard', '管理ダッシュボード'],
      ['/admin/users', 'ユーザー管理'],
      ['/admin/corporate', '法人アカウント管理'],
      ['/admin/transfers', '振込確認'],
      ['/admin/pricing', '料金設定'],
      ['/admin/revenue', '収益集計'],
      ['/docs/api', 'APIドキュメント'],
      ['/commerce', '特定商取引法に基づく表記'],
    ];
    for (const [path, title] of titles) {
      await page.goto(path);
      await expect(page).toHaveTitle(new RegExp(`^${title} \\| POI Cloud$`));
    }
  });

  test('guest pages, /docs and /commerce show no shell; the landing page links to sign-in and docs', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('navigation', { name: 'サイドメニュー' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: /ログイン/ }).first()).toBeVisible();
    await expect(page.getByRole('link', { name: /APIドキュメント/ }).first()).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/landing-1280.png`, fullPage: true });
    for (const path of ['/docs/api', '/commerce', '/auth/login']) {
      await page.goto(path);
      await expect(page.getByRole('button', { name: 'ユーザーメニュー' })).toHaveCount(0);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: `${SCREENS}/landing-390.png`, fullPage: true });
  });

  test('the profile page shows the account and saves the display name', async ({ page, request }) => {
    const email = uniqueEmail('profile');
    await useSession(page, await signInByApi(request, email));
    await page.goto('/profile');
    await expect(page.getByText(email).first()).toBeVisible();
    await expect(page.getByText('トライアル').first()).toBeVisible();
    await page.getByRole('textbox', { name: '表示名' }).fill('山田 太郎');
    await page.getByRole('button', { name: /保存/ }).click();
    await expect(page.getByText('プロフィールを更新しました').first()).toBeVisible();
    const nav = page.getByRole('navigation', { name: 'サイドメニュー' });
    await expect(nav.getByText('山田 太郎')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('textbox', { name: '表示名' })).toHaveValue('山田 太郎');
  });
});

test.describe('accessibility (axe, WCAG 2.1 AA) and screenshots', () => {
  test('login page', async ({ page }) => {
    await page.goto('/auth/login');
    await expectAxeClean(page);
    await page.screenshot({ path: `${SCREENS}/login-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: `${SCREENS}/login-390.png`, fullPage: true });
  });

  test('verify page', async ({ page }) => {
    const email = uniqueEmail('axe');
    const since = Date.now();
    await page.request.post('/console/v1/auth/request-otp', { data: { email } });
    await waitForMail(email, since);
    await page.goto(`/auth/verify-otp?email=${encodeURIComponent(email)}&redirect=%2Fdashboard`);
    await expect(page.getByLabel('認証コード')).toBeVisible();
    await expectAxeClean(page);
    await page.screenshot({ path: `${SCREENS}/verify-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await page.screenshot({ path: `${SCREENS}/verify-390.png`, fullPage: true });
  });

  test('dashboard', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('axedash')));
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'ダッシュボード' })).toBeVisible();
    await expectAxeClean(page);
  });
});
