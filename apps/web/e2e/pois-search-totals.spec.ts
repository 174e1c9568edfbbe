import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { expectAxeClean } from './support/a11y';
import { pickOption } from './support/combobox';
import * as sdk from '../../../packages/sdk/src/index';

// Totals and pagers past 100 POIs; /docs/api samples that work when pasted.

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function provider(request: APIRequestContext) {
  const login = await signInByApi(request, uniqueEmail('totals'));
  await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(adminSession().token), data: { account_type: 'data_provider', reason: 'テスト' } });
  return { ...login, user: { ...login.user, account_type: 'data_provider' as const } };
}

async function datasetWith(request: APIRequestContext, token: string, name: string, rows: string[]): Promise<string> {
  const res = await request.post('/console/v1/datasets/public/create', { headers: auth(token), data: { name, price_per_search: 0 } });
  const id = (await res.json()).data.dataset_id as string;
  const csv = ['名称,緯度,経度,カテゴリ', ...rows].join('\r\n');
  const imported = await request.post('/console/v1/poi/bulk-import', {
    headers: auth(token),
    multipart: { dataset_id: id, format: 'csv', file: { name: 'pois.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) } },
  });
  expect(imported.status(), await imported.text()).toBe(200);
  return id;
}

test('a dataset of 130 POIs pages to its last POI; a keyword past 100 says 100件以上 and still reaches every page', async ({ page, request }) => {
  test.setTimeout(120_000);
  const login = await provider(request);
  const id = await datasetWith(
    request,
    login.token,
    '130件のデータ',
    Array.from({ length: 130 }, (_, i) => `店舗 ${String(i + 1).padStart(3, '0')},${(35.6 + i * 0.001).toFixed(6)},139.7,カフェ`),
  );
  await useSession(page, login);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/marketplace/${id}`);
  const section = page.locator('section[aria-labelledby="poi-section"]');
  await expect(section.getByRole('heading', { name: 'POI一覧(130件)' })).toBeVisible();
  await expect(section.getByText('1 / 7 ページ (全 130 件)')).toBeVisible();
  for (let i = 0; i < 6; i++) await section.getByRole('button', { name: '次へ' }).click();
  await expect(section.getByText('7 / 7 ページ (全 130 件)')).toBeVisible();
  await expect(section.locator('tbody tr')).toHaveCount(10);
  await expect(section.getByRole('button', { name: '次へ' })).toBeDisabled();

  await section.getByLabel('POIを名称で検索').fill('カフェ');
  await section.getByRole('button', { name: '検索' }).click();
  await expect(section.getByRole('heading', { name: 'POI一覧(100件以上)' })).toBeVisible();
  await expect(section.getByText('1 ページ (100件以上)')).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/poi-pager-capped-1280.png`, fullPage: true });
  for (let i = 0; i < 6; i++) await section.getByRole('button', { name: '次へ' }).click();
  await expect(section.getByText('7 ページ (100件以上)')).toBeVisible();
  await expect(section.locator('tbody tr')).toHaveCount(10);
  await expect(section.getByRole('button', { name: '次へ' })).toBeDisabled();
  await page.setViewportSize({ width: 390, height: 844 });
  await section.getByRole('navigation', { name: 'ページ送り' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/poi-pager-capped-390.png` });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('/poi: a 100 m search with 139 hits says 100件以上 and pages through all 139', async ({ page, request }) => {
  test.setTimeout(120_000);
  const login = await provider(request);
  await datasetWith(
    request,
    login.token,
    '駅前の139件',
    Array.from({ length: 139 }, (_, i) => `駅前 ${i + 1},${(35.681236 + (i % 10) * 0.00005).toFixed(6)},${(139.767125 + Math.floor(i / 10) * 0.00005).toFixed(6)},カフェ`),
  );
  await useSession(page, login);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/poi');
  await pickOption(page, 'データセット', '駅前の139件', /駅前の139件/);
  await page.getByLabel('緯度').fill('35.681236');
  await page.getByLabel('経度').fill('139.767125');
  await page.getByLabel('半径(m)').fill('100');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  const results = page.locator('section[aria-labelledby="poi-results"]');
  await expect(results.getByRole('heading', { name: '検索結果(100件以上)' })).toBeVisible();
  await expect(results.getByText('1 ページ (100件以上)')).toBeVisible();
  const seen = new Set<string>();
  for (let p = 1; ; p++) {
    await expect(results.getByText(`${p} ページ (100件以上)`)).toBeVisible();
    for (const name of await results.locator('tbody tr td:first-child').allTextContents()) seen.add(name);
    const next = results.getByRole('button', { name: '次へ' });
    if (await next.isDisabled()) break;
    const first = await results.locator('tbody tr td:first-child').first().textContent();
    await next.click();
    // The previous page stays on screen (dimmed) until the next one arrives.
    await expect(results.locator('tbody tr td:first-child').first()).not.toHaveText(first!);
  }
  expect(seen.size).toBe(139);
  await page.screenshot({ path: `${SCREENS}/poi-radius-capped-1280.png`, fullPage: true });
});

test('/docs/api shows a sample answer per case, and the examples work when pasted', async ({ page, request }) => {
  test.setTimeout(90_000);
  const login = await provider(request);
  const id = await datasetWith(request, login.token, 'ドキュメント確認', ['カフェ 丸の内,35.681236,139.767125,カフェ', 'カフェ 八重洲,35.6804,139.7694,カフェ', '書店 遠方,35.0,135.0,書店']);
  const key = (await (await request.post('/console/v1/api-keys', { headers: auth(login.token), data: { name: 'ドキュメント' } })).json()).data.key as string;

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/docs/api');
  for (const heading of ['応答例', '応答ヘッダー', 'ページ送り', 'パラメーターの扱い']) await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
  for (const sample of ['半径検索', '最後のページ', '不明なパラメーター', '範囲外・整数でない limit', 'POST で呼び出した']) {
    await expect(page.getByRole('heading', { name: new RegExp(sample) }).first()).toBeVisible();
  }
  await expect(page.getByRole('cell', { name: 'X-RateLimit-Remaining', exact: true }).first()).toBeVisible();
  await expect(page.getByRole('cell', { name: 'Retry-After', exact: true }).first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'マーケットプレイス' })).toHaveAttribute('href', '/marketplace');
  await page.screenshot({ path: `${SCREENS}/docs-api-1280.png`, fullPage: true });

  // The notice above the examples says both variables are required and where each comes from.
  const notice = page.getByTestId('examples-env');
  await expect(notice).toContainText('例を実行する前に、環境変数を2つ設定してください(どちらも必須です)');
  await expect(notice.getByRole('link', { name: 'APIキー管理' })).toHaveAttribute('href', '/api-keys');
  await notice.screenshot({ path: `${SCREENS}/docs-api-examples-env-1280.png` });

  const env = { ...process.env, POI_API_KEY: key, POI_DATASET_ID: id };
  // Only the key set: the example stops before any request and says what to set and where to copy it.
  const keyOnly = { ...process.env, POI_API_KEY: key, POI_DATASET_ID: '' };
  const explanation = '環境変数 POI_DATASET_ID を設定してください: 検索するデータセットのID(必須)。マーケットプレイス(/marketplace)のカードをクリックするとコピーできます';
  const stopped = spawnSync('bash', ['-c', (await page.getByLabel('curl の例', { exact: true }).textContent())!], { env: keyOnly, encoding: 'utf8' });
  expect(stopped.status).not.toBe(0);
  expect(stopped.stdout).toBe('');
  expect(stopped.stderr).toContain(explanation);
  // curl, exactly as shown.
  const curl = (await page.getByLabel('curl の例', { exact: true }).textContent())!;
  const fromCurl = JSON.parse(execFileSync('bash', ['-c', curl], { env, encoding: 'utf8' }));
  expect(fromCurl.success).toBe(true);
  expect(fromCurl.data.pois.map((p: { name: string }) => p.name)).toEqual(['カフェ 丸の内', 'カフェ 八重洲']);

  // JavaScript, exactly as shown (top-level await inside an async function).
  const run = async (code: string) => {
    const logged: unknown[][] = [];
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<void>;
    await new AsyncFunction('process', 'console', code)({ env }, { log: (...a: unknown[]) => logged.push(a) });
    return logged;
  };
  await page.getByRole('tab', { name: 'JavaScript' }).first().click();
  expect(await run((await page.getByLabel('JavaScript の例', { exact: true }).textContent())!)).toEqual([[2, ['カフェ 丸の内', 'カフェ 八重洲']]]);
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<void>;
  await expect(new AsyncFunction('process', (await page.getByLabel('JavaScript の例', { exact: true }).textContent())!)({ env: keyOnly })).rejects.toThrow(explanation);
  expect(await run((await page.getByLabel('cursor で全件を取得する例(JavaScript)').textContent())!)).toEqual([[2]]);

  // The TypeScript SDK's example, exactly as shown, with the SDK as its import line names it.
  const sdkCode = (await page.getByLabel('TypeScript SDK の例').textContent())!;
  const [importLine, ...sdkBody] = sdkCode.split('\n');
  const imported = /^import \{ (.+) \} from '@poi\/sdk';$/.exec(importLine!)![1]!.split(', ');
  const logged: unknown[][] = [];
  await new AsyncFunction(...imported, 'process', 'console', sdkBody.join('\n'))(
    ...imported.map((name) => sdk[name as keyof typeof sdk]),
    { env },
    { log: (...a: unknown[]) => logged.push(a) },
  );
  expect(logged[0]).toEqual([2, ['カフェ 丸の内', 'カフェ 八重洲']]);
  expect(logged[2]).toEqual([3]);
  expect(logged[3]!.slice(0, 2)).toEqual([400, 'VALIDATION_ERROR']);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('heading', { name: '応答例', exact: true }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/docs-api-390.png` });
  await notice.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/docs-api-examples-env-390.png` });
  await expectAxeClean(page, '/docs/api(例の前の注意)390px');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
