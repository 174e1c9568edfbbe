import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { expectNoHorizontalScroll } from './support/a11y';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';

// Guest routes opened by a signed-in user, Enter on the login page, the dataset detail screen's
// header and price history, and the console split into per-screen chunks.

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** The JavaScript files the page has fetched so far (hashed chunk names). */
function recordScripts(page: Page): string[] {
  const scripts: string[] = [];
  page.on('request', (req) => {
    if (req.resourceType() === 'script') scripts.push(new URL(req.url()).pathname);
  });
  return scripts;
}

test.describe('guest routes and a signed-in user', () => {
  test('login, verify and magic link go to /dashboard whatever their redirect says', async ({ page, request }) => {
    await useSession(page, await signInByApi(request, uniqueEmail('signed-in')));
    await page.goto('/auth/login?redirect=%2Fusage');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'ダッシュボード' })).toBeVisible();

    await page.goto('/auth/verify-otp?email=a%40example.com&redirect=%2Fusage');
    await expect(page).toHaveURL(/\/dashboard$/);

    await page.goto(`/auth/magic/${'b'.repeat(64)}?redirect=%2Fusage`);
    await expect(page.getByText('既にログインしています').first()).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});

test.describe('login page and its weight', () => {
  for (const width of [1280, 390]) {
    test(`Enter with an invalid address shows the message and keeps the cursor in the field (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      const scripts = recordScripts(page);
      await page.goto('/auth/login?redirect=%2Fusage');
      const field = page.getByLabel('メールアドレス');
      await expect(field).toBeFocused();
      // The page shows without the HTTP client, zod, TanStack Query, the shell or Leaflet.
      expect(scripts.filter((s) => /\/(api-client|zod|query|app-shell|forms|leaflet|poi-map)-/.test(s))).toEqual([]);

      await field.fill('user@example');
      await field.press('Enter');
      await expect(page.getByRole('alert')).toHaveText('有効なメールアドレスを入力してください');
      await expect(field).toHaveAttribute('aria-invalid', 'true');
      await expect(field).toBeFocused();
      await expect(page.getByRole('button', { name: '認証コードを送信' })).toBeDisabled();
      await expect(page).toHaveURL(/\/auth\/login\?redirect=%2Fusage$/);
      await expectNoHorizontalScroll(page);
      await page.screenshot({ path: `${SCREENS}/login-enter-invalid-${width}.png`, fullPage: true });

      await field.fill('');
      await field.press('Enter');
      await expect(page.getByRole('alert')).toHaveText('メールアドレスを入力してください');

      // A valid address and Enter send the code, as the button does.
      await field.fill(uniqueEmail('enter'));
      await expect(page.getByRole('alert')).toHaveCount(0);
      await field.press('Enter');
      await expect(page).toHaveURL(/\/auth\/verify-otp\?email=.+&redirect=%2Fusage$/);
      await expect(page.getByLabel('認証コード')).toBeVisible();
    });
  }
});

test.describe('dataset detail screen', () => {
  test('the name has the width, the ID stays whole, the price history is a card list at 390 px', async ({ page, request }) => {
    const admin = adminSession();
    const name = `全国チェーン店舗データセット(コンビニエンスストア・ドラッグストア・家電量販店)${Date.now().toString(36)}`;
    const created = await request.post('/console/v1/admin/datasets/assign', {
      headers: auth(admin.token),
      data: { name, description: '全国の主要チェーン店舗の所在地と営業時間を収録したデータセットです。毎月更新しています。', price_per_search: 0.5 },
    });
    expect(created.ok()).toBe(true);
    const id = ((await created.json()) as { data: { dataset_id: string } }).data.dataset_id;
    for (const [price, reason] of [
      [1.25, '店舗数の拡充(約12,000店舗を追加)に伴う価格改定'],
      [2, '営業時間・駐車場情報の追加'],
    ] as const) {
      const res = await request.post(`/console/v1/datasets/${id}/price`, { headers: auth(admin.token), data: { new_price: price, reason } });
      expect(res.ok()).toBe(true);
    }

    await useSession(page, admin);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`/marketplace/${id}`);
    const heading = page.getByRole('heading', { level: 1, name });
    await expect(heading).toBeVisible();
    const actions = page.getByRole('group', { name: 'データセットの操作' });
    // 価格変更, POI一括インポート, 削除 and the export menu (a disclosure of CSV/GeoJSON downloads).
    await expect(actions.getByRole('button')).toHaveCount(3);
    await expect(actions.locator('summary', { hasText: 'エクスポート' })).toHaveCount(1);
    // The name spans the card instead of a narrow column beside the buttons.
    const headingBox = (await heading.boundingBox())!;
    expect(headingBox.width).toBeGreaterThan(600);
    // The dataset ID is on one line, with its copy button.
    const idCode = page.locator('dd code').filter({ hasText: id });
    await expect(idCode).toHaveText(id);
    const idBox = (await idCode.boundingBox())!;
    expect(idBox.height).toBeLessThan(30);
    await expect(page.getByRole('button', { name: 'データセットIDをコピー' })).toBeVisible();
    const history = page.getByRole('region', { name: '価格変更履歴' });
    await expect(history.getByRole('row', { name: /¥2\.00.*現在も有効.*営業時間/ })).toBeVisible();
    await expect(history.getByRole('list', { name: '価格変更履歴' })).toBeHidden();
    await page.screenshot({ path: `${SCREENS}/dataset-detail-header-1280.png` });

    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await expect(history.getByRole('table')).toBeHidden();
    const cards = history.getByRole('list', { name: '価格変更履歴' }).getByRole('listitem');
    await expect(cards).toHaveCount(3);
    await expect(cards.first()).toContainText('¥2.00');
    await expect(cards.first()).toContainText('現在も有効');
    // Nothing in the cards is wider than the screen: the history does not scroll sideways.
    const widest = await history.evaluate((el) => Math.max(...[...el.querySelectorAll('*')].map((n) => n.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(390);
    // At 390 px the ID may wrap, but only after a hyphen.
    const lines = await idCode.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = [...range.getClientRects()].map((r) => Math.round(r.top));
      return new Set(tops).size;
    });
    expect(lines).toBeLessThanOrEqual(2);
    await page.screenshot({ path: `${SCREENS}/dataset-detail-header-390.png`, fullPage: true });
    await history.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/dataset-detail-history-390.png` });
  });
});
