import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { auth, makeProvider } from './support/api';
import { useSession } from './support/auth';
import { pickOption } from './support/combobox';

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');

async function providerWithDatasets(request: APIRequestContext) {
  const login = await makeProvider(request, { prefix: 'poiadmin' });
  const create = async (name: string) =>
    (await (await request.post('/console/v1/datasets/public/create', { headers: auth(login.token), data: { name, price_per_search: 0 } })).json()).data.dataset_id as string;
  return { login, first: await create('東京の店舗'), second: await create('移動先データ') };
}

const CSV = [
  '名称,緯度,経度,住所,カテゴリ,タグ',
  'ｶﾌｪ 丸の内,35.681236,139.767125,東京都千代田区丸の内1-1,カフェ,Wi-Fi|禁煙',
  '東京タワー,35.658584,139.745431,東京都港区芝公園4-2-8,観光,展望台',
  '横浜の店,35.465800,139.622300,神奈川県横浜市西区,カフェ,',
  '緯度が変,95,139,,,',
].join('\r\n');

test('import a CSV in the modal, find the POIs by keyword and radius on /poi, move one, see them on the map', async ({ page, request }) => {
  test.setTimeout(90_000);
  const { login, first, second } = await providerWithDatasets(request);
  await useSession(page, login);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/marketplace/${first}`);
  await page.getByRole('button', { name: 'POI一括インポート' }).click();
  const modal = page.getByRole('dialog', { name: 'POI一括インポート' });
  await expect(modal.getByText('CSVのサンプル')).toBeVisible();
  await expect(modal.getByRole('button', { name: 'インポート' })).toBeDisabled();
  await modal.getByLabel('ファイル', { exact: false }).first().setInputFiles({ name: 'bad.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await expect(modal.getByText('ファイルは .csv、.json、.geojson(gzip圧縮した .gz も可)を選択してください')).toBeVisible();
  await modal.getByLabel('ファイル', { exact: false }).first().setInputFiles({ name: 'stores.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await expect(modal.getByTestId('import-file-info')).toHaveText(/stores\.csv(.*B)/);
  await modal.getByRole('button', { name: 'インポート' }).click();
  await expect(modal.getByText('4 件中 3 件を登録しました(1 件をスキップ)')).toBeVisible();
  await expect(modal.getByRole('cell', { name: '緯度は-90から90の範囲で入力してください' })).toBeVisible();
  await expect(modal.getByRole('button', { name: '閉じる' }).last()).toBeVisible();
  await expect(page.getByText('POIの一括インポートが完了しました').first()).toBeVisible({ timeout: 5_000 });
  await modal.getByRole('button', { name: '閉じる' }).last().click();
  await expect(page.getByRole('cell', { name: '東京タワー', exact: true })).toBeVisible();

  // /poi: keyword (half-width kana finds full-width), then radius around Tokyo station.
  await page.goto('/poi');
  await expect(page).toHaveTitle(/POI管理/);
  await pickOption(page, 'データセット', '東京の店舗', '東京の店舗');
  await page.getByLabel('キーワード').fill('カフェ');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  const results = page.getByRole('region', { name: /検索結果/ });
  await expect(results.getByRole('row')).toHaveCount(3);
  await expect(results.getByRole('cell', { name: 'ｶﾌｪ 丸の内', exact: true })).toBeVisible();
  // Typed the way people type: hiragana finds katakana, a reading finds the kanji name.
  await page.getByLabel('キーワード').fill('かふぇ まるのうち');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  await expect(results.getByRole('row')).toHaveCount(2);
  await expect(results.getByRole('cell', { name: 'ｶﾌｪ 丸の内', exact: true })).toBeVisible();
  await page.getByLabel('キーワード').fill('とうきょうたわー');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  await expect(results.getByRole('row')).toHaveCount(2);
  await expect(results.getByRole('cell', { name: '東京タワー', exact: true })).toBeVisible();

  await page.getByLabel('キーワード').fill('');
  await page.getByLabel('緯度').fill('35.681236');
  await page.getByLabel('経度').fill('139.767125');
  await page.getByLabel('半径(m)').fill('5000');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  await expect(results.getByRole('row')).toHaveCount(3);
  await expect(results.getByRole('row').nth(1)).toContainText('ｶﾌｪ 丸の内');
  await expect(results.getByRole('row').nth(1)).toContainText('0 m');
  await expect(results.getByRole('row').nth(2)).toContainText('東京タワー');
  await expect(results.getByRole('row').nth(2)).toContainText('km');
  await expect(page.locator('.leaflet-interactive').first()).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/poi-radius-1280.png`, fullPage: true });

  // Move 東京タワー to the other dataset; it leaves this dataset's results.
  await page.getByRole('button', { name: '東京タワー を移動' }).click();
  const dialog = page.getByRole('dialog', { name: 'POIを移動' });
  await pickOption(dialog, '移動先のデータセット', '移動先', '移動先データ');
  await dialog.getByRole('button', { name: '移動する' }).click();
  await expect(page.getByText('POIを移動しました').first()).toBeVisible();
  await expect(results.getByRole('row')).toHaveCount(2);
  const moved = await (await request.get(`/console/v1/poi/search?dataset_id=${second}`, { headers: auth(login.token) })).json();
  expect(moved.data.pois.map((p: { name: string }) => p.name)).toEqual(['東京タワー']);

  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: `${SCREENS}/poi-390.png`, fullPage: true });
});

test('a map click fills latitude and longitude in the create modal', async ({ page, request }) => {
  const { login, first } = await providerWithDatasets(request);
  await useSession(page, login);
  await page.goto(`/marketplace/${first}`);
  await page.getByRole('button', { name: 'POIを登録' }).first().click();
  const modal = page.getByRole('dialog', { name: 'POIを登録' });
  const map = modal.getByRole('region', { name: '位置を選ぶ地図' });
  await expect(map.locator('.leaflet-container')).toBeVisible();
  await map.locator('.leaflet-container').click({ position: { x: 200, y: 100 } });
  await expect(modal.getByLabel('緯度')).not.toHaveValue('');
  await expect(modal.getByLabel('経度')).not.toHaveValue('');
});
