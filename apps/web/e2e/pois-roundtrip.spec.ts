import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { pickOption } from './support/combobox';

/** Export → import round trip in the console, the tag editor, /poi at 1280 and 390 px. */
const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function setUp(request: APIRequestContext) {
  const login = await signInByApi(request, uniqueEmail('roundtrip'));
  const admin = adminSession();
  await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: 'data_provider', reason: 'テスト' } });
  const create = async (name: string) =>
    (await (await request.post('/console/v1/datasets/public/create', { headers: auth(login.token), data: { name, price_per_search: 0 } })).json()).data.dataset_id as string;
  const first = await create('渋谷の店舗データ');
  const second = await create('移動先');
  const pois = [
    { name: '@cosme TOKYO', latitude: 35.658034, longitude: 139.701636, address: '東京都渋谷区神宮前1-14-27', phone: '+81-3-0000-0000', tags: ['a,b', 'c|d', '化粧品'] },
    { name: "'引用符で始まる店", latitude: 35.659, longitude: 139.7, address: '東京都渋谷区道玄坂2-1', tags: ['カフェ'] },
    { name: '＝全角イコールの店', latitude: 35.66, longitude: 139.702, address: '東京都渋谷区宇田川町21-1 とても長い住所の建物名 3階' },
  ];
  for (const p of pois) await request.post('/console/v1/poi/register', { headers: auth(login.token), data: { dataset_id: first, ...p } });
  return { login: { ...login, user: { ...login.user, account_type: 'data_provider' as const } }, first, second };
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

for (const width of [1280, 390]) {
  test(`export → import in the default update mode duplicates nothing and changes nothing (${width} px)`, async ({ page, request }) => {
    test.setTimeout(90_000);
    const { login, first } = await setUp(request);
    await useSession(page, login);
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/marketplace/${first}`);
    await expect(page.getByRole('heading', { name: '渋谷の店舗データ' })).toBeVisible();
    const before = await (await request.get(`/console/v1/poi/search?dataset_id=${first}&limit=100`, { headers: auth(login.token) })).json();

    await page.getByText('エクスポート', { exact: true }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'CSV(gzip圧縮)' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('渋谷の店舗データ.csv.gz');
    const file = await readFile((await download.path())!);

    await page.getByRole('button', { name: 'POI一括インポート' }).click();
    const modal = page.getByRole('dialog', { name: 'POI一括インポート' });
    await expect(modal.getByRole('radio', { name: /^更新/ })).toBeChecked();
    await expect(modal.getByText(/エクスポートしたファイルを編集して戻しても重複しません/)).toBeVisible();
    await modal.getByLabel('ファイル', { exact: false }).first().setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/gzip', buffer: file });
    await modal.getByRole('button', { name: 'インポート' }).click();
    await expect(modal.getByTestId('import-counts')).toHaveText('追加 0 件・更新 0 件・変更なし 3 件・スキップ 0 件');
    await page.screenshot({ path: `${SCREENS}/roundtrip-import-${width}.png` });
    await modal.getByRole('button', { name: '閉じる' }).last().click();

    const after = await (await request.get(`/console/v1/poi/search?dataset_id=${first}&limit=100`, { headers: auth(login.token) })).json();
    const fields = (list: Array<Record<string, unknown>>) =>
      list.map(({ poi_id, name, latitude, longitude, address, phone, tags }) => ({ poi_id, name, latitude, longitude, address, phone, tags })).sort((a, b) => String(a.poi_id).localeCompare(String(b.poi_id)));
    expect(fields(after.data.pois)).toEqual(fields(before.data.pois));

    // The POI list: cards within the width on a phone, the table from md up; 詳細 and 削除 on screen.
    const section = page.locator('section[aria-labelledby="poi-section"]');
    const remove = section.getByRole('button', { name: '@cosme TOKYO を削除' });
    await expect(remove).toBeVisible();
    const box = (await remove.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
    if (width === 390) await expect(section.getByRole('list', { name: 'POI' })).toBeVisible();
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/dataset-pois-${width}.png`, fullPage: true });
  });

  test(`/poi: edit keeps tags whole, the table fits, dataset counts follow a move and a delete (${width} px)`, async ({ page, request }) => {
    test.setTimeout(90_000);
    const { login, first, second } = await setUp(request);
    await useSession(page, login);
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/poi');
    await pickOption(page, 'データセット', '渋谷の店舗データ', /渋谷の店舗データ\s*3件/);
    // The picker's suggestions show each dataset's POI count.
    const expectCount = async (name: RegExp) => {
      await page.getByRole('button', { name: 'データセットの候補を開く' }).click();
      await expect(page.getByRole('listbox', { name: 'データセットの候補' }).getByRole('option', { name })).toHaveCount(1);
      await page.keyboard.press('Escape');
    };
    await page.getByRole('button', { name: '検索', exact: true }).click();
    const results = page.getByRole('region', { name: /検索結果/ });
    const edit = results.getByRole('button', { name: '@cosme TOKYO を編集' });
    await expect(edit).toBeVisible();

    // Every action button of every result lies within the screen; rows are not squeezed.
    for (const label of ['の詳細', 'を編集', 'を移動', 'を削除']) {
      const b = (await results.getByRole('button', { name: `＝全角イコールの店 ${label}` }).boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(width);
    }
    if (width === 1280) {
      const row = results.getByRole('row', { name: /＝全角イコールの店/ });
      expect((await row.boundingBox())!.height).toBeLessThan(120);
      const datasetCell = row.getByRole('cell', { name: '渋谷の店舗データ' });
      expect((await datasetCell.boundingBox())!.width).toBeGreaterThan(100);
    }
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENS}/poi-results-${width}.png`, fullPage: true });

    // 編集 → 更新 unchanged: the tags with , and | stay as they were.
    await edit.click();
    const dialog = page.getByRole('dialog', { name: 'POIを編集' });
    await expect(dialog.getByRole('list', { name: '登録するタグ' }).getByRole('listitem')).toHaveText(['a,b', 'c|d', '化粧品']);
    await dialog.getByRole('button', { name: '更新', exact: true }).dispatchEvent('click');
    await expect(page.getByText('POIを更新しました').first()).toBeVisible();
    const cosme = (await (await request.get(`/console/v1/poi/search?dataset_id=${first}&keyword=cosme`, { headers: auth(login.token) })).json()).data.pois[0];
    expect(cosme.tags).toEqual(['a,b', 'c|d', '化粧品']);

    // Move one, delete one: the dropdown's counts follow without a reload.
    await results.getByRole('button', { name: '@cosme TOKYO を移動' }).click();
    const move = page.getByRole('dialog', { name: 'POIを移動' });
    await pickOption(move, '移動先のデータセット', '移動先', /^移動先/);
    await move.getByRole('button', { name: '移動する' }).dispatchEvent('click');
    await expect(page.getByText('POIを移動しました').first()).toBeVisible();
    await expectCount(/渋谷の店舗データ\s*2件/);
    await expectCount(/^移動先\s*1件/);
    await results.getByRole('button', { name: '＝全角イコールの店 を削除' }).click();
    await page.getByRole('dialog', { name: 'POIを削除' }).getByRole('button', { name: '削除する' }).dispatchEvent('click');
    await expect(page.getByText('POIを削除しました').first()).toBeVisible();
    await expectCount(/渋谷の店舗データ\s*1件/);
    expect((await (await request.get(`/console/v1/datasets/${second}`, { headers: auth(login.token) })).json()).data.poi_count).toBe(1);
  });
}
