import { expect, test, type Browser, type Page } from '@playwright/test';
import { expectAxeClean } from './support/a11y';
import { uniqueEmail } from './support/auth';
import { extractCode, extractMagicPath, waitForMail } from './support/mailbox';

/**
 * Once, a mail scanner that runs JavaScript (a headless Chromium) opened the magic link,
 * signed in, and the user's own click and code then both failed. The link now lands on a page
 * where a person presses 「ログインする」; loading it, with its scripts, spends nothing.
 */

async function requestSignIn(page: Page, email: string, redirect?: string) {
  const since = Date.now();
  const res = await page.request.post('/console/v1/auth/request-otp', { data: { email, ...(redirect ? { redirect } : {}) } });
  expect(res.ok()).toBe(true);
  return waitForMail(email, since);
}

/** A scanner: its own browser context loads the link several times, runs the page, waits. */
async function scan(browser: Browser, path: string) {
  const scanner = await browser.newContext();
  const page = await scanner.newPage();
  const magicCalls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/console/v1/auth/magic/')) magicCalls.push(`${r.method()} ${r.url()}`);
  });
  for (let i = 0; i < 3; i++) {
    await page.goto(path);
    await expect(page.getByRole('button', { name: 'ログインする' })).toBeVisible();
    await page.waitForLoadState('networkidle');
  }
  await page.waitForTimeout(1_000);
  // The scanner is not signed in, and the page asked the server for nothing about the link.
  expect(await page.evaluate(() => window.localStorage.getItem('auth_token'))).toBeNull();
  expect(magicCalls).toEqual([]);
  await scanner.close();
}

test.describe('magic link behind a mail scanner', () => {
  test('the scanner opening the link leaves the user\'s code working', async ({ page, browser }) => {
    const email = uniqueEmail('scan-code');
    const mail = await requestSignIn(page, email);
    await scan(browser, extractMagicPath(mail));

    await page.goto(`/auth/verify-otp?email=${encodeURIComponent(email)}`);
    await page.getByLabel('認証コード').fill(extractCode(mail));
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'ダッシュボード' })).toBeVisible();
  });

  test('the scanner opening the link leaves the link working: the user confirms with the button (390 px)', async ({ page, browser }) => {
    const email = uniqueEmail('scan-link');
    const mail = await requestSignIn(page, email, '/profile');
    const link = /http:\/\/[^\s]+\/auth\/magic\/[a-z0-9]{64}[^\s]*/.exec(mail.text)![0];
    const path = new URL(link).pathname + new URL(link).search;
    await scan(browser, path);

    // The user, in a browser of their own, on a phone.
    const user = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'ja-JP' });
    const userPage = await user.newPage();
    await userPage.goto(path);
    await expect(userPage).toHaveTitle(/マジックリンク認証/);
    await expect(userPage.getByRole('heading', { level: 1, name: 'マジックリンク認証' })).toBeVisible();
    const button = userPage.getByRole('button', { name: 'ログインする' });
    await expect(button).toBeVisible();
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    await userPage.screenshot({ path: test.info().outputPath('magic-link-confirm-390.png'), fullPage: true });
    await userPage.screenshot({ path: 'apps/web/e2e/.artifacts/magic-link-confirm-390.png', fullPage: true });
    await expectAxeClean(userPage, 'magic link confirmation');

    // Keyboard: Tab reaches the button, Enter presses it.
    await userPage.keyboard.press('Tab');
    await userPage.keyboard.press('Tab');
    await expect(button).toBeFocused();
    await userPage.keyboard.press('Enter');
    await expect(userPage.getByText('ログインしました').first()).toBeVisible();
    await expect(userPage).toHaveURL(/\/profile$/);
    await expect(userPage.getByRole('main').getByText(email)).toBeVisible();
    await user.close();
  });
});
