import { expect, test } from '@playwright/test';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { extractCode, extractMagicPath, waitForMail } from './support/mailbox';

test.describe('sign-in', () => {
  test('by code: login page → mail over SMTP → verify page → dashboard', async ({ page }) => {
    const email = uniqueEmail('code');
    await page.goto('/auth/login');
    await expect(page).toHaveTitle(/ログイン/);
    const send = page.getByRole('button', { name: '認証コードを送信' });
    await expect(send).toBeDisabled();
    await page.getByLabel('メールアドレス').fill('not-an-address');
    await expect(send).toBeDisabled();
    await page.getByLabel('メールアドレス').fill(email);
    await expect(send).toBeEnabled();
    const since = Date.now();
    await send.click();
    await expect(page.getByText('認証コードを送信しました。メールをご確認ください。').first()).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/verify-otp\?/);
    const url = new URL(page.url());
    expect(url.searchParams.get('email')).toBe(email);
    expect(url.searchParams.get('redirect')).toBe('/dashboard');
    await expect(page.getByRole('button', { name: /再送信/ })).toBeDisabled();

    const mail = await waitForMail(email, since);
    expect(mail.subject).toBe('【POI Cloud】ログイン用の認証コード');
    const input = page.getByLabel('認証コード');
    await input.fill(`ab${extractCode(mail)}9`);
    await expect(input).toHaveValue(extractCode(mail));
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page.getByText('ログインしました').first()).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'ダッシュボード' })).toBeVisible();
    await expect(page).toHaveTitle(/ダッシュボード/);
  });

  test('a wrong code is cleared and the field refocused', async ({ page }) => {
    const email = uniqueEmail('wrong');
    const since = Date.now();
    await page.request.post('/console/v1/auth/request-otp', { data: { email } });
    const code = extractCode(await waitForMail(email, since));
    await page.goto(`/auth/verify-otp?email=${encodeURIComponent(email)}`);
    const input = page.getByLabel('認証コード');
    await input.fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page.getByText('認証コードが正しくないか、有効期限が切れています').first()).toBeVisible();
    await expect(input).toHaveValue('');
    await expect(input).toBeFocused();
    await expect(page).toHaveURL(/\/auth\/verify-otp/);
  });

  test('verify without an e-mail in the query returns to login', async ({ page }) => {
    await page.goto('/auth/verify-otp');
    await expect(page.getByText('メールアドレスが指定されていません').first()).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login/);
  });

  test('by magic link, landing on the page the user wanted', async ({ page }) => {
    const email = uniqueEmail('magic');
    const since = Date.now();
    await page.request.post('/console/v1/auth/request-otp', { data: { email, redirect: '/profile' } });
    const mail = await waitForMail(email, since);
    const link = /http:\/\/[^\s]+\/auth\/magic\/[a-z0-9]{64}[^\s]*/.exec(mail.text)![0];
    expect(link).toContain('redirect=%2Fprofile');
    await page.goto(new URL(link).pathname + new URL(link).search);
    await page.getByRole('button', { name: 'ログインする' }).click();
    await expect(page.getByText('ログインしました').first()).toBeVisible();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByText(email).first()).toBeVisible();
  });

  test('a used magic link shows the failure and returns to login after 3 s', async ({ page, request }) => {
    const email = uniqueEmail('used');
    const since = Date.now();
    await request.post('/console/v1/auth/request-otp', { data: { email } });
    const path = extractMagicPath(await waitForMail(email, since));
    expect((await request.post(`/console/v1${path}`)).ok()).toBe(true);
    await page.goto(path);
    await page.getByRole('button', { name: 'ログインする' }).click();
    await expect(page.getByText('リンクが無効または期限切れです。もう一度ログインしてください').first()).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login/, { timeout: 6_000 });
  });

  test('a malformed magic token is refused without calling the server', async ({ page }) => {
    let called = false;
    page.on('request', (r) => {
      if (r.url().includes('/console/v1/auth/magic/')) called = true;
    });
    await page.goto('/auth/magic/NOT-A-TOKEN');
    await expect(page.getByText('マジックリンクのトークンが無効です。').first()).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login/, { timeout: 6_000 });
    expect(called).toBe(false);
  });
});

test.describe('guards', () => {
  test('a guest is sent to login with the full target, and back after sign-in', async ({ page }) => {
    await page.goto('/marketplace?type=paid#top');
    await expect(page).toHaveURL(/\/auth\/login\?redirect=/);
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/marketplace?type=paid#top');

    const email = uniqueEmail('guard');
    await page.getByLabel('メールアドレス').fill(email);
    const since = Date.now();
    await page.getByRole('button', { name: '認証コードを送信' }).click();
    await expect(page).toHaveURL(/\/auth\/verify-otp/);
    await page.getByLabel('認証コード').fill(extractCode(await waitForMail(email, since)));
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page).toHaveURL(/\/marketplace\?type=paid#top$/);
  });

  test('a redirect to another site is ignored', async ({ page }) => {
    const email = uniqueEmail('evil');
    const since = Date.now();
    await page.request.post('/console/v1/auth/request-otp', { data: { email } });
    const code = extractCode(await waitForMail(email, since));
    await page.goto(`/auth/verify-otp?email=${encodeURIComponent(email)}&redirect=${encodeURIComponent('//evil.example/x')}`);
    await page.getByLabel('認証コード').fill(code);
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/dashboard$/);
  });

  test('a signed-in user is sent away from guest pages and unknown paths', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('signed')));
    await page.goto('/auth/login');
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/auth/verify-otp?email=a%40example.com');
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/no/such/page');
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('a signed-in user opening a magic link is told they are already signed in', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('again')));
    await page.goto(`/auth/magic/${'a'.repeat(64)}`);
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('admin and revenue routes send other users to the dashboard', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('plain')));
    for (const path of ['/admin/users', '/admin/pricing', '/revenue']) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/dashboard$/);
    }
  });

  test('an admin reaches the admin screens', async ({ page }) => {
    await useSession(page, adminSession());
    await page.goto('/admin/users');
    await expect(page).toHaveURL(/\/admin\/users$/);
    await expect(page).toHaveTitle(/ユーザー管理/);
    await page.goto('/revenue');
    await expect(page).toHaveURL(/\/revenue$/);
  });

  test('a session the server no longer knows sends the user to login', async ({ page, request }) => {
    const login = await signInByApi(request, uniqueEmail('revoked'));
    await request.post('/console/v1/auth/logout', { headers: { authorization: `Bearer ${login.token}` } });
    await useSession(page, login);
    await page.goto('/profile');
    // The stored user is shown at once; the background refresh answers 401, which ends the session.
    await expect(page).toHaveURL(/\/auth\/login/);
    const token = await page.evaluate(() => window.localStorage.getItem('auth_token'));
    expect(token).toBeNull();
  });
});

test.describe('logout', () => {
  test('from the user menu, back to login; protected pages then need sign-in', async ({ page, request }) => {
    const email = uniqueEmail('logout');
    const login = await signInByApi(request, email);
    await useSession(page, login);
    await page.goto('/dashboard');
    await page.getByRole('button', { name: 'ユーザーメニュー' }).click();
    const menu = page.getByRole('menu');
    await expect(menu.locator('..').getByText(email)).toBeVisible();
    await menu.getByRole('menuitem', { name: 'ログアウト' }).click();
    await expect(page).toHaveURL(/\/auth\/login/);
    const res = await request.get('/console/v1/user', { headers: { authorization: `Bearer ${login.token}` } });
    expect(res.status()).toBe(401);
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/auth\/login\?redirect=%2Fdashboard/);
  });

  test('reaches the login page even when the logout call fails', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('logoutfail')));
    await page.route('**/console/v1/auth/logout', (route) => route.abort('connectionfailed'));
    await page.goto('/dashboard');
    await page.getByRole('button', { name: 'ユーザーメニュー' }).click();
    await page.getByRole('menuitem', { name: 'ログアウト' }).click();
    await expect(page).toHaveURL(/\/auth\/login/);
  });
});
