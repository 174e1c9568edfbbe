import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { auth } from './support/api';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { extractCode, waitForMail } from './support/mailbox';

/*
 * The console's rough edges, found at 390 px, with the keyboard and on desktop: wide admin tables
 * keep their actions in view at 1280 × 800, the sidebar shows the current page's link, and the
 * screens touched stay axe-clean. Screenshots go to e2e/.artifacts/screens/rough-*.png.
 */

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENS, `rough-${name}-${page.viewportSize()?.width}.png`), fullPage: true });

/** Pending transfers with long names and amounts, answered instead of the server's (no month needs closing for them). */
function pendingTransfers(n: number): PendingTransfer[] {
  return Array.from({ length: n }, (_, i) => ({
    invoice_id: `inv-${i + 1}`,
    invoice_number: `POI-202611-00000${i + 1}`,
    customer_name: i === 0 ? '株式会社ポイクラウド・ジャパン・ホールディングス' : `テスト商事株式会社 ${i + 1}`,
    customer_kana: 'カブシキガイシャポイクラウドジャパンホールディングス',
    customer_number: `100000${i + 1}`,
    total: 1_234_567,
    paid: 10_000,
    remaining: 1_224_567,
    due_date: '2026-12-31',
    days_overdue: 12,
    status: 'overdue',
  }));
}

async function routePending(page: Page, transfers: () => PendingTransfer[]) {
  await page.route('**/console/v1/admin/transfers/pending?*', (route) =>
    route.fulfill({ json: { success: true, data: { transfers: transfers(), total: transfers().length } } }),
  );
}

test.describe('wide admin screens at 1280 × 800', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('「入金を確認」 is inside the viewport without page-level horizontal scroll', async ({ page }) => {
    await useSession(page, adminSession());
    await routePending(page, () => pendingTransfers(3));
    await page.goto('/admin/transfers');
    const button = page.getByRole('button', { name: 'POI-202611-000001 の入金を確認' });
    await expect(button).toBeVisible();
    await expectNoHorizontalScroll(page);
    const box = (await button.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
    // Not hidden in the table's own scroll region either: the region shows the whole button.
    const region = (await page.getByRole('region', { name: '入金待ちの銀行振込' }).boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(region.x + region.width);
    await shot(page, 'admin-transfers');
    await expectAxeClean(page, '/admin/transfers (wide rows)');
    // And on a phone: the table scrolls inside its region, the page does not widen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await shot(page, 'admin-transfers');
  });

  test('the pricing tables fit, or scroll inside their labelled regions', async ({ page }) => {
    await useSession(page, adminSession());
    await page.goto('/admin/pricing');
    await expect(page.getByRole('heading', { level: 1, name: '料金設定' })).toBeVisible();
    await expectNoHorizontalScroll(page);
    for (const name of ['現在の料金(アカウント種別ごと)', '料金設定の履歴と予定']) {
      const region = page.getByRole('region', { name });
      await expect(region).toHaveAttribute('tabindex', '0');
      // Every column is in view: the table is no wider than its region.
      const overflow = await region.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow, name).toBeLessThanOrEqual(0);
    }
    await shot(page, 'admin-pricing');
    await expectAxeClean(page, '/admin/pricing');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await shot(page, 'admin-pricing');
    await expectAxeClean(page, '/admin/pricing');
  });

  test('the sidebar shows the current page’s link at 800 px high', async ({ page }) => {
    await useSession(page, adminSession());
    await page.goto('/admin/pricing');
    const current = page.getByRole('navigation', { name: 'サイドメニュー' }).locator('a[aria-current="page"]');
    await expect(current).toHaveText('料金設定');
    await expect(current).toBeInViewport({ ratio: 1 });
    await shot(page, 'admin-sidebar');
  });
});

test.describe('at 800 px wide', () => {
  test.use({ viewport: { width: 800, height: 600 } });

  test('the drawer shows the current page’s link', async ({ page }) => {
    await useSession(page, adminSession());
    await page.goto('/admin/pricing');
    await expect(page.getByRole('heading', { level: 1, name: '料金設定' })).toBeVisible();
    await page.getByRole('button', { name: 'メニューを開く' }).click();
    const current = page.getByRole('navigation', { name: 'モバイルメニュー' }).locator('a[aria-current="page"]');
    await expect(current).toHaveText('料金設定');
    await expect(current).toBeInViewport({ ratio: 1 });
    await shot(page, 'admin-drawer');
    await expectNoHorizontalScroll(page);
  });
});

test('approving a corporate application keeps focus in its dialog (on its heading), not on <body>', async ({ page, request }) => {
  const owner = await signInByApi(request, uniqueEmail('rough-corp'));
  const company = `株式会社フォーカス${Date.now().toString(36).slice(-4)}`;
  const applied = await request.post('/console/v1/upgrade/corporate', {
    headers: auth(owner.token),
    data: {
      company_name: company,
      company_name_kana: 'カブシキガイシャフォーカス',
      department: null,
      postal_code: '100-0005',
      address: '東京都千代田区丸の内1-1-1',
      phone: '03-1234-5678',
      billing_contact_name: '経理 花子',
      billing_emails: ['keiri@example.com'],
      corporate_number: null,
      registration_number: null,
      payment_method: 'bank_transfer',
    },
  });
  expect(applied.ok(), await applied.text()).toBe(true);
  await useSession(page, adminSession());
  await page.goto('/admin/corporate?status=pending');
  await page.getByRole('button', { name: new RegExp(company) }).click();
  const detail = page.getByRole('dialog', { name: new RegExp(company) });
  await detail.getByRole('button', { name: '承認する' }).click();
  const approve = page.getByRole('dialog', { name: 'お申し込みを承認' });
  await approve.getByLabel(/理由/).fill('与信審査済み');
  await approve.getByRole('button', { name: '承認する' }).click();
  await expect(page.getByText('お申し込みを承認しました')).toBeVisible();
  await expect(detail.getByRole('button', { name: '停止する' })).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent, inDialog: !!document.activeElement?.closest('dialog') })))
    .toEqual({ tag: 'H2', text: `法人アカウント: ${company}`, inDialog: true });
});

test('signed-in pages run without a Content-Security-Policy violation (zod runs jitless)', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|unsafe-eval|Refused to evaluate/i.test(msg.text())) violations.push(`console: ${msg.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { __csp?: string[] };
      (w.__csp ??= []).push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  await useSession(page, adminSession());
  // Screens whose answers are parsed with zod object schemas (the session check, lists, forms).
  for (const [route, heading] of [
    ['/dashboard', 'ダッシュボード'],
    ['/billing', '請求・お支払い'],
    ['/admin/pricing', '料金設定'],
  ] as const) {
    await page.goto(route);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await page.waitForLoadState('networkidle');
    violations.push(...(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])).map((v) => `${route}: ${v}`));
  }
  await page.getByRole('button', { name: '新しい料金設定' }).click();
  await page.getByRole('dialog').getByRole('button', { name: '変更内容を確認する' }).click();
  violations.push(...(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])));
  expect(violations).toEqual([]);
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('what the sign-in pages said does not follow onto /dashboard; toasts have Japanese names', async ({ page }) => {
    const email = uniqueEmail('rough-toast');
    await page.goto('/auth/login');
    await page.getByLabel('メールアドレス').fill(email);
    const since = Date.now();
    await page.getByRole('button', { name: '認証コードを送信' }).click();
    const sent = page.getByText('認証コードを送信しました。メールをご確認ください。');
    await expect(sent.first()).toBeVisible();
    await page.getByLabel('認証コード').fill(extractCode(await waitForMail(email, since)));
    await page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByText('ログインしました').first()).toBeVisible();
    // Counted at once, not waited for: the toast would also go by itself after its 5 s. (A toast
    // being dismissed stays in the page for its exit animation, with data-in="false".)
    expect(await page.locator('.Toastify__toast[data-in="true"]').allInnerTexts()).toEqual(['ログインしました']);
    // The countdown bar is named in Japanese (react-toastify's own name is English).
    await expect(page.getByRole('progressbar').first()).toHaveAttribute('aria-label', '通知が閉じるまでの時間');
    await expect(page.locator('[aria-label="notification timer"]')).toHaveCount(0);
    // Nor later, on the next page.
    await page.getByRole('button', { name: 'メニューを開く' }).click();
    await page.getByRole('navigation', { name: 'モバイルメニュー' }).getByRole('link', { name: 'APIキー' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'APIキー管理' })).toBeVisible();
    expect(await sent.count()).toBe(0);
  });

  test('every drawer link is at least 44 px high', async ({ page }) => {
    await useSession(page, adminSession());
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'ダッシュボード' })).toBeVisible();
    await page.getByRole('button', { name: 'メニューを開く' }).click();
    const drawer = page.getByRole('dialog', { name: 'メニュー' });
    const links = drawer.getByRole('link');
    expect(await links.count()).toBeGreaterThan(10);
    const heights = await links.evaluateAll((els) => els.map((el) => ({ name: el.textContent?.trim(), height: Math.round(el.getBoundingClientRect().height) })));
    expect(heights.filter((h) => h.height < 44)).toEqual([]);
    await shot(page, 'drawer');
    await expectAxeClean(page, 'drawer');
  });
});

test.describe('/billing while it loads (Lighthouse’s phone: 412 × 823)', () => {
  test.use({ viewport: { width: 412, height: 823 } });

  test('the sections keep their places: no layout shift as their answers arrive', async ({ page, request }) => {
    const admin = adminSession();
    const login = await signInByApi(request, uniqueEmail('rough-billing'));
    const changed = await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: 'individual', reason: 'テスト' } });
    expect(changed.ok(), await changed.text()).toBe(true);
    const dataset = await request.post('/console/v1/admin/datasets/assign', { headers: auth(admin.token), data: { name: '請求テスト店舗', price_per_search: 1.5, assigned_user_id: null, provider_user_id: null } });
    const datasetId = (await dataset.json()).data.dataset_id as string;
    const key = (await (await request.post('/console/v1/api-keys', { headers: auth(login.token), data: { name: '本番' } })).json()).data.key as string;
    for (let i = 0; i < 5; i++) expect((await request.get(`/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': key } })).status()).toBe(200);
    await expect
      .poll(async () => (await (await request.get('/console/v1/billing/current', { headers: auth(login.token) })).json()).data.subtotal, { timeout: 10_000 })
      .toBeGreaterThan(0);

    await useSession(page, login);
    await page.addInitScript(() => {
      const w = window as unknown as { __cls: Array<{ value: number; sources: string[] }> };
      w.__cls = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: Array<{ node?: Node }> }>) {
          if (entry.hadRecentInput) continue;
          w.__cls.push({ value: entry.value, sources: (entry.sources ?? []).map((s) => (s.node instanceof Element ? `${s.node.tagName} ${s.node.getAttribute('aria-labelledby') ?? s.node.className}` : String(s.node?.nodeName))) });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    // Each section's answer arrives at its own time, as on a slow phone.
    let delay = 0;
    await page.route('**/console/v1/**', async (route) => {
      if (!/\/console\/v1\/(billing|budget|plans?|invoices|payment)/.test(route.request().url())) return route.continue();
      delay += 400;
      await new Promise((r) => setTimeout(r, delay));
      await route.continue();
    });
    await page.goto('/billing');
    await expect(page.getByRole('heading', { level: 1, name: '請求・お支払い' })).toBeVisible();
    await expect(page.getByRole('heading', { name: '今月のご利用(見込み)' })).toBeVisible();
    await expect(page.getByText('請求テスト店舗').first()).toBeVisible({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await expect(page.locator('[role=status]').filter({ hasText: '読み込み中' })).toHaveCount(0);
    const heights = await page.evaluate(() => Array.from(document.querySelectorAll('main section')).map((s) => `${s.getAttribute('aria-labelledby')}: ${Math.round(s.getBoundingClientRect().height)}`));
    test.info().annotations.push({ type: 'section heights', description: heights.join(', ') });
    const shifts = await page.evaluate(() => (window as unknown as { __cls: Array<{ value: number; sources: string[] }> }).__cls);
    const total = shifts.reduce((sum, s) => sum + s.value, 0);
    expect(total, JSON.stringify({ shifts, heights })).toBeLessThan(0.01);
    await shot(page, 'billing');
    await expectAxeClean(page, '/billing');
  });
});
