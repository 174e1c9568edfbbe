import { execSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { pickOption } from './support/combobox';

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function makeUser(request: APIRequestContext, accountType: 'individual' | 'data_provider', name: string) {
  const email = uniqueEmail(accountType);
  const login = await signInByApi(request, email);
  const admin = adminSession();
  expect((await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: accountType, reason: 'テスト' } })).ok()).toBe(true);
  await request.patch('/console/v1/user', { headers: auth(login.token), data: { display_name: name } });
  return { ...login, user: { ...login.user, account_type: accountType, display_name: name } };
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), fullPage: true });
  await expectNoHorizontalScroll(page);
}

test.describe.configure({ mode: 'serial' });
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('a consumer creates a key, runs the shown curl command, and sees the search on /usage and /dashboard; the provider sees the revenue', async ({ page, request, browser }) => {
  test.setTimeout(120_000);
  const provider = await makeUser(request, 'data_provider', '東京データ株式会社');
  const datasetName = `東京の駅 ${Date.now().toString(36)}`;
  const created = await request.post('/console/v1/datasets/public/create', { headers: auth(provider.token), data: { name: datasetName, price_per_search: 1.5 } });
  expect(created.ok()).toBe(true);
  const datasetId = (await created.json()).data.dataset_id as string;
  expect((await request.post('/console/v1/poi/register', { headers: auth(provider.token), data: { dataset_id: datasetId, name: '東京駅', latitude: 35.681236, longitude: 139.767125 } })).ok()).toBe(true);

  const consumer = await makeUser(request, 'individual', '山田太郎');
  await useSession(page, consumer);
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'はじめての検索' })).toBeVisible();
  await expect(page.getByTestId('usage-searches')).toHaveText('0回');

  await page.goto('/api-keys');
  await expect(page.getByText('APIキーはまだありません。')).toBeVisible();
  await page.getByRole('button', { name: 'APIキーを作成' }).first().click();
  const form = page.getByRole('dialog', { name: 'APIキーを作成' });
  await form.getByLabel('許可するIPアドレス').fill('203.0.113.999');
  await form.getByRole('button', { name: '作成' }).click();
  await expect(form.getByText('キー名を入力してください')).toBeVisible();
  await expect(form.getByText('許可するIPアドレスは 203.0.113.5 や 203.0.113.0/24 の形式で入力してください')).toBeVisible();
  await form.getByLabel('キー名').fill('本番サーバー');
  await form.getByLabel('許可するIPアドレス').fill('');
  await form.getByRole('button', { name: '作成' }).click();

  const reveal = page.getByRole('dialog', { name: 'APIキーを作成しました' });
  await expect(reveal.getByText('このAPIキーは今だけ表示されます。')).toBeVisible();
  await expectAxeClean(page);
  const key = await reveal.getByLabel('本番サーバー').inputValue();
  expect(key).toMatch(/^poi_live_[0-9A-Za-z]{38}$/);
  await reveal.getByRole('button', { name: 'APIキーをコピー' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await pickOption(reveal, '検索するデータセット', datasetName, datasetName);
  const command = await reveal.getByTestId('curl-command').innerText();
  expect(command).toContain(key);
  expect(command).toContain(datasetId);
  await shoot(page, 'api-keys-reveal');
  // The backdrop does not close the one-time reveal.
  await page.getByTestId('modal-backdrop').click({ position: { x: 5, y: 5 } });
  await expect(reveal).toBeVisible();

  // Run the command exactly as shown, as a user would in a terminal.
  const output = JSON.parse(execSync(command, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  expect(output.success).toBe(true);
  expect(output.data.pois[0].name).toBe('東京駅');

  await reveal.getByRole('button', { name: '保存しました。閉じる' }).click();
  const row = page.getByRole('row', { name: /本番サーバー/ });
  await expect(row.getByText('有効')).toBeVisible();
  await expect(row.getByText(key.slice(0, 15))).toBeVisible();
  await expect(page.getByText(key)).toHaveCount(0);
  await shoot(page, 'api-keys');
  await expectAxeClean(page);

  // The search appears on /usage: ¥1.50 of dataset price; the base fee is within the free searches.
  await page.goto('/usage');
  await expect(page.getByTestId('usage-searches')).toHaveText('1回');
  await expect(page.getByTestId('usage-amount')).toHaveText('¥1.50');
  await expect(page.getByTestId('usage-free-remaining')).toHaveText('999回');
  await expect(page.getByRole('row', { name: new RegExp(datasetName) })).toContainText('¥1.50');
  await expect(page.getByRole('row', { name: /本番サーバー/ })).toContainText('1');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'CSVダウンロード' }).click();
  expect((await download).suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}\.csv$/);
  await shoot(page, 'usage');
  await expectAxeClean(page);

  await page.goto('/dashboard');
  await expect(page.getByTestId('usage-searches')).toHaveText('1回');
  await expect(page.getByTestId('usage-active-keys')).toHaveText('1個');
  await expect(page.getByRole('heading', { name: 'はじめての検索' })).toHaveCount(0);
  await shoot(page, 'dashboard');

  // The provider's revenue: 1.50 × 1 search × 70 %.
  const providerContext = await browser.newContext();
  const pp = await providerContext.newPage();
  await useSession(pp, provider);
  await pp.goto('/revenue');
  await expect(pp.getByLabel('対象月')).toHaveValue(/^\d{4}-\d{2}$/);
  await expect(pp.getByTestId('revenue-total')).toHaveText('¥1.05');
  await expect(pp.getByTestId('revenue-searches')).toHaveText('1');
  await expect(pp.getByTestId('revenue-datasets')).toHaveText('1');
  await pp.getByRole('button', { name: datasetName }).click();
  await expect(pp.getByRole('table').getByText('¥1.05').first()).toBeVisible();
  await shoot(pp, 'revenue');
  await expectAxeClean(pp);
  await pp.setViewportSize({ width: 375, height: 800 });
  await shoot(pp, 'revenue-mobile');
  // Last year: nothing earned, the dataset listed at zero.
  const [y, m] = (await pp.getByLabel('対象月').inputValue()).split('-');
  await pp.getByLabel('対象月').selectOption(`${Number(y) - 1}-${m}`);
  await expect(pp.getByTestId('revenue-total')).toHaveText('¥0.00');
  await providerContext.close();

  // Rotate, then revoke, each after a confirmation.
  await page.goto('/api-keys');
  await page.getByRole('row', { name: /本番サーバー/ }).getByRole('button', { name: 'ローテーション' }).click();
  await page.getByRole('dialog', { name: 'APIキーをローテーション' }).getByRole('button', { name: 'ローテーションする' }).click();
  const rotated = page.getByRole('dialog', { name: '新しいAPIキー' });
  await expect(rotated.getByText('古いキーは24時間後に無効になります')).toBeVisible();
  const newKey = await rotated.getByLabel('本番サーバー').inputValue();
  expect(newKey).not.toBe(key);
  await rotated.getByRole('button', { name: '保存しました。閉じる' }).click();
  await expect(page.getByRole('row', { name: /ローテーション中/ })).toHaveCount(1);
  const activeRow = page.getByRole('row', { name: new RegExp(newKey.slice(0, 15)) });
  await activeRow.getByRole('button', { name: '無効化' }).click();
  await page.getByRole('dialog', { name: 'APIキーを無効化' }).getByRole('button', { name: '無効化する' }).click();
  await expect(activeRow.getByText('無効化済み')).toBeVisible();
  const refused = await request.get(`/api/v1/poi/search?dataset_id=${datasetId}`, { headers: { 'x-api-key': newKey } });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.message).toBe('このAPIキーは無効化されています');

  await page.setViewportSize({ width: 375, height: 800 });
  await shoot(page, 'api-keys-mobile');
  await page.goto('/usage');
  await expect(page.getByTestId('usage-searches')).toHaveText('1回');
  await shoot(page, 'usage-mobile');
});

test('the API documentation opens in a new tab without the console shell, rendered from /openapi.json', async ({ page, request }) => {
  const consumer = await makeUser(request, 'individual', '鈴木花子');
  await useSession(page, consumer);
  await page.goto('/api-keys');
  const [docs] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'APIドキュメント' }).first().click()]);
  await expect(docs).toHaveURL(/\/docs\/api$/);
  await expect(docs.getByRole('heading', { level: 1, name: 'POI Cloud 公開検索API' })).toBeVisible();
  await expect(docs.getByLabel('サイドメニュー')).toHaveCount(0);
  await expect(docs.getByRole('button', { name: 'メニューを開く' })).toHaveCount(0);
  // The search's sections (the suggest's follow, named 「…(suggest)」).
  const section = (name: string) => docs.getByRole('region', { name, exact: true });
  await expect(section('パラメーター(クエリ文字列)').getByRole('cell', { name: 'dataset_id', exact: true })).toBeVisible();
  await expect(section('パラメーター(クエリ文字列)').getByRole('row', { name: /^radius/ })).toContainText('1〜50000');
  await expect(section('エラー').getByRole('row', { name: /^402/ })).toContainText('PAYMENT_REQUIRED');
  await expect(section('応答ヘッダー').getByRole('cell', { name: 'X-RateLimit-Remaining', exact: true })).toBeVisible();
  await expect(section('パラメーター(クエリ文字列)(suggest)').getByRole('cell', { name: 'q', exact: true })).toBeVisible();
  await section('リクエスト例').getByRole('tab', { name: 'Python' }).click();
  await expect(section('リクエスト例').getByLabel('Python の例')).toContainText('requests.get(');
  await shoot(docs, 'docs-api');
  await expectAxeClean(docs);
  await docs.setViewportSize({ width: 375, height: 800 });
  await shoot(docs, 'docs-api-mobile');
});
