import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { auth, makeProvider } from './support/api';
import { useSession } from './support/auth';
import { pickOption } from './support/combobox';

// The POI form's tag field (comma, 、 and Enter commit a tag), and the export menu's size note.

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');

async function providerWithDataset(request: APIRequestContext, name: string) {
  const login = await makeProvider(request, { prefix: 'tags' });
  const res = await request.post('/console/v1/datasets/public/create', { headers: auth(login.token), data: { name, price_per_search: 0 } });
  return { login, datasetId: (await res.json()).data.dataset_id as string };
}

const poisOf = async (request: APIRequestContext, token: string, datasetId: string) =>
  (await (await request.get(`/console/v1/poi/search?dataset_id=${datasetId}&limit=100`, { headers: auth(token) })).json()).data.pois as Array<{
    name: string;
    tags: string[];
    updated_at: string;
  }>;

test('at 390 px, typing 「カフェ, Wi-Fi」 and Enter in the tag field gives two chips, and the saved POI has two tags', async ({ page, request }) => {
  test.setTimeout(90_000);
  const { login, datasetId } = await providerWithDataset(request, 'タグの確認');
  await useSession(page, login);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/marketplace/${datasetId}`);
  await page.getByRole('button', { name: 'POIを登録' }).first().click();
  const modal = page.getByRole('dialog', { name: 'POIを登録' });
  await modal.getByLabel(/名称/).fill('駅前カフェ');
  await modal.getByLabel(/緯度/).fill('35.681236');
  await modal.getByLabel(/経度/).fill('139.767125');
  const tags = modal.getByRole('textbox', { name: 'タグ' });
  await tags.pressSequentially('カフェ, Wi-Fi');
  await tags.press('Enter');
  const chips = modal.getByRole('list', { name: '登録するタグ' }).getByRole('listitem');
  await expect(chips).toHaveText(['カフェ', 'Wi-Fi']);
  await expect(tags).toHaveValue('');
  await expect(modal.getByRole('button', { name: 'タグ「Wi-Fi」を削除' })).toBeVisible();
  await tags.scrollIntoViewIfNeeded();
  await expectAxeClean(page, 'POI登録(タグ入力後)390px');
  await page.screenshot({ path: `${SCREENS}/poi-tags-390.png` });
  await modal.getByRole('button', { name: '登録', exact: true }).click();
  await expect(modal).toBeHidden();
  expect((await poisOf(request, login.token, datasetId)).map((p) => [p.name, p.tags])).toEqual([['駅前カフェ', ['カフェ', 'Wi-Fi']]]);
  await expectNoHorizontalScroll(page);

  // The export menu says a plain CSV may not come back and the .csv.gz does.
  await page.getByText('エクスポート', { exact: true }).click();
  await expect(page.getByTestId('export-size-note')).toHaveText(
    'CSVはそのままでは取り込み上限(送信時10MB)を超えることがあります。gzip圧縮版(.csv.gz)なら展開後100MBまで、そのまま取り込めます',
  );
  await page.getByTestId('export-size-note').scrollIntoViewIfNeeded();
  // The open menu lies within the screen, not cut off at its left edge.
  const box = (await page.getByTestId('export-size-note').boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await expectAxeClean(page, 'データセット詳細(エクスポートメニュー)390px');
  await expectNoHorizontalScroll(page);
  await page.screenshot({ path: `${SCREENS}/poi-export-note-390.png` });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('export-size-note').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/poi-export-note-1280.png` });
});

test('at 1280 px, a stored tag holding a comma stays one chip and an unchanged save leaves the POI as it was', async ({ page, request }) => {
  test.setTimeout(90_000);
  const { login, datasetId } = await providerWithDataset(request, 'カンマ入りタグ');
  const created = await request.post('/console/v1/poi/register', {
    headers: auth(login.token),
    data: { dataset_id: datasetId, name: '丸の内の店', latitude: 35.681236, longitude: 139.767125, tags: ['駅前, 東口', '禁煙'] },
  });
  expect(created.ok()).toBe(true);
  const [before] = await poisOf(request, login.token, datasetId);
  await useSession(page, login);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/poi');
  await pickOption(page, 'データセット', 'カンマ入りタグ', 'カンマ入りタグ');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  await page.getByRole('button', { name: '丸の内の店 を編集' }).click();
  const modal = page.getByRole('dialog', { name: 'POIを編集' });
  const chips = modal.getByRole('list', { name: '登録するタグ' }).getByRole('listitem');
  await expect(chips).toHaveText(['駅前, 東口', '禁煙']);
  // Keyboard only: type a list ending in 、, remove the new chip with its button, Backspace removes nothing typed.
  const tags = modal.getByRole('textbox', { name: 'タグ' });
  await tags.focus();
  await page.keyboard.type('電源、');
  await expect(chips).toHaveText(['駅前, 東口', '禁煙', '電源']);
  await tags.scrollIntoViewIfNeeded();
  await expectAxeClean(page, 'POI編集(タグ)1280px');
  await page.screenshot({ path: `${SCREENS}/poi-tags-1280.png` });
  await modal.getByRole('button', { name: 'タグ「電源」を削除' }).focus();
  await page.keyboard.press('Enter');
  await expect(chips).toHaveText(['駅前, 東口', '禁煙']);
  await expect(tags).toBeFocused();
  await modal.getByRole('button', { name: '更新', exact: true }).click();
  await expect(modal).toBeHidden();
  const [after] = await poisOf(request, login.token, datasetId);
  expect(after).toEqual(before);
});
