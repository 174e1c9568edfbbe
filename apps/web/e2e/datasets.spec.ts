import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { auth, makeProvider } from './support/api';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { pickOption } from './support/combobox';

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');

test.describe.configure({ mode: 'serial' });
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('platform admin creates a dataset for a provider, who manages its POIs and price, then deletes it', async ({ page, request, browser }) => {
  test.setTimeout(120_000);
  const provider = await makeProvider(request, { displayName: '東京データ株式会社' });
  const datasetName = `東京カフェ ${Date.now().toString(36)}`;

  // The platform admin creates the dataset on /marketplace, choosing editor and recipient.
  await useSession(page, adminSession());
  await page.goto('/marketplace');
  await page.getByRole('button', { name: '公開データセットを作成' }).first().click();
  const modal = page.getByRole('dialog', { name: 'データセットを作成' });
  await modal.getByLabel('データセット名').fill(datasetName);
  await modal.getByLabel('説明').fill('都内のカフェを集めたデータセット');
  await modal.getByLabel('1検索あたりの価格(円)').fill('1001');
  await modal.getByRole('button', { name: '作成' }).click();
  await expect(modal.getByText('価格は0から1000の範囲で入力してください')).toBeVisible();
  await modal.getByLabel('1検索あたりの価格(円)').fill('0.5');
  await pickOption(modal, 'POI編集者(データプロバイダー)', provider.email, `東京データ株式会社 (${provider.email})`);
  await pickOption(modal, '収益受取人(データプロバイダー)', provider.email, `東京データ株式会社 (${provider.email})`);
  await modal.getByRole('button', { name: '作成' }).click();
  await expect(page.getByText('データセットを作成しました').first()).toBeVisible();
  await expect(modal).toBeHidden();
  const card = page.getByRole('article', { name: datasetName });
  await expect(card).toBeVisible();
  await expect(card.getByText('¥0.50')).toBeVisible();
  await expect(card.getByText('プロバイダー', { exact: true })).toBeVisible();

  // The provider sees it on /datasets and opens it.
  const providerContext = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const pp = await providerContext.newPage();
  await useSession(pp, provider);
  await pp.goto('/datasets');
  const providerCard = pp.getByRole('article', { name: datasetName });
  await expect(providerCard).toBeVisible();
  await providerCard.getByRole('link', { name: '詳細を見る' }).click();
  await expect(pp).toHaveURL(/\/marketplace\/[0-9a-f-]{36}$/);
  await expect(pp).toHaveTitle(/データセット詳細/);
  const datasetId = pp.url().split('/').pop()!;
  // Sen prices show two decimals (¥0.50, never ¥0.5000), 税込 beside it for a consumer viewer.
  await expect(pp.getByText(/¥0\.50(?!\d)/).first()).toBeVisible();
  await expect(pp.getByText('¥0.5000')).toHaveCount(0);
  await expect(pp.getByText('データプロバイダー提供')).toBeVisible();
  await expect(pp.getByText('POIが登録されていません')).toBeVisible();

  // Register one POI through the modal (empty optional fields are left out).
  await pp.getByRole('button', { name: 'POIを登録' }).first().click();
  const poiModal = pp.getByRole('dialog', { name: 'POIを登録' });
  await poiModal.getByLabel('名称').fill('珈琲館 銀座店');
  await poiModal.getByLabel('緯度').fill('35.671234');
  await poiModal.getByLabel('経度').fill('139.765432');
  await poiModal.getByLabel('住所').fill('東京都中央区銀座4-1-1');
  await poiModal.getByLabel('ウェブサイト').fill('ftp://example.com');
  await poiModal.getByRole('button', { name: '登録' }).click();
  await expect(poiModal.getByText('ウェブサイトは http:// または https:// で始まるURLを入力してください')).toBeVisible();
  await poiModal.getByLabel('ウェブサイト').fill('https://example.com/ginza');
  await poiModal.getByLabel('タグ').fill('カフェ, , Wi-Fi ,');
  await poiModal.getByRole('button', { name: '登録' }).click();
  await expect(pp.getByText('POIを登録しました').first()).toBeVisible();
  await expect(pp.getByRole('cell', { name: '珈琲館 銀座店', exact: true })).toBeVisible();
  await expect(pp.getByRole('cell', { name: '35.671234' })).toBeVisible();

  // 44 more through the API, then page through all 45.
  for (let i = 1; i <= 44; i++) {
    const res = await request.post('/console/v1/poi/register', {
      headers: auth(provider.token),
      data: { dataset_id: datasetId, name: `テスト店舗 ${String(i).padStart(2, '0')}`, latitude: 35 + i / 1000, longitude: 139 + i / 1000 },
    });
    expect(res.ok()).toBe(true);
  }
  await pp.reload();
  await expect(pp.getByText('1 / 3 ページ (全 45 件)')).toBeVisible();
  await expect(pp.getByRole('button', { name: '前へ' })).toBeDisabled();
  await pp.getByRole('button', { name: '次へ' }).click();
  await expect(pp.getByText('2 / 3 ページ (全 45 件)')).toBeVisible();
  await pp.getByRole('button', { name: '次へ' }).click();
  await expect(pp.getByText('3 / 3 ページ (全 45 件)')).toBeVisible();
  await expect(pp.getByRole('button', { name: '次へ' })).toBeDisabled();
  await expect(pp.getByRole('region', { name: /POI一覧/ }).getByRole('row')).toHaveCount(6);

  // Search by name with Enter.
  await pp.getByLabel('POIを名称で検索').fill('珈琲');
  await pp.getByLabel('POIを名称で検索').press('Enter');
  await expect(pp.getByRole('region', { name: /POI一覧/ }).getByRole('row')).toHaveCount(2);
  await pp.getByRole('button', { name: '珈琲館 銀座店 の詳細' }).click();
  const detail = pp.getByRole('dialog', { name: 'POI詳細' });
  await expect(detail.getByText('東京都中央区銀座4-1-1')).toBeVisible();
  await expect(detail.getByText('Wi-Fi')).toBeVisible();
  await detail.getByRole('button', { name: '閉じる' }).click();

  // Change the price: a history row appears.
  await pp.getByRole('button', { name: '価格変更' }).click();
  const price = pp.getByRole('dialog', { name: '価格を変更' });
  await expect(price.getByText('0.00 = 無料、最大1000円まで')).toBeVisible();
  await price.getByLabel('新しい価格(円)').fill('1.25');
  await price.getByLabel('変更理由').fill('データ拡充のため');
  await price.getByRole('button', { name: '変更する' }).click();
  await expect(price).toBeHidden();
  await expect(pp.getByText(/¥1\.25(?!\d)/).first()).toBeVisible();
  const history = pp.getByRole('region', { name: '価格変更履歴' });
  await expect(history.getByRole('row', { name: /¥1\.25.*現在も有効.*データ拡充のため/ })).toBeVisible();
  await expect(history.getByRole('row', { name: /¥0\.50.*初期価格/ })).toBeVisible();
  await pp.setViewportSize({ width: 1280, height: 900 });
  await pp.screenshot({ path: `${SCREENS}/dataset-detail-1280.png`, fullPage: true });
  await pp.setViewportSize({ width: 390, height: 844 });
  expect(await pp.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await pp.screenshot({ path: `${SCREENS}/dataset-detail-390.png`, fullPage: true });
  await pp.setViewportSize({ width: 1280, height: 900 });

  // Delete the POI (in-app confirmation).
  await pp.getByRole('button', { name: '珈琲館 銀座店 を削除' }).click();
  await pp.getByRole('dialog', { name: 'POIを削除' }).getByRole('button', { name: '削除する' }).click();
  await expect(pp.getByText('POIを削除しました').first()).toBeVisible();
  await expect(pp.getByText('条件に一致するPOIはありません')).toBeVisible();

  // A trial user: card, ¥ price, preview, no management buttons; copy ID toast.
  const trialContext = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const tp = await trialContext.newPage();
  await useSession(tp, await signInByApi(request, uniqueEmail('viewer')));
  await tp.goto('/marketplace');
  await expect(tp.getByRole('button', { name: '公開データセットを作成' })).toHaveCount(0);
  const trialCard = tp.getByRole('article', { name: datasetName });
  await expect(trialCard.getByText('¥1.25')).toBeVisible();
  await trialCard.click();
  await expect(tp.getByText('データセットIDをコピーしました').first()).toBeVisible();
  expect(await tp.evaluate(() => navigator.clipboard.readText())).toBe(datasetId);
  await tp.screenshot({ path: `${SCREENS}/marketplace-1280.png`, fullPage: true });
  await tp.setViewportSize({ width: 390, height: 844 });
  expect(await tp.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await tp.screenshot({ path: `${SCREENS}/marketplace-390.png`, fullPage: true });
  await tp.setViewportSize({ width: 1280, height: 900 });
  await trialCard.getByRole('link', { name: '詳細を見る' }).click();
  await expect(tp.getByRole('heading', { level: 1, name: datasetName })).toBeVisible();
  await expect(tp.getByText('プレビューとして先頭10件を表示しています。全件の検索は検索APIをご利用ください。')).toBeVisible();
  await expect(tp.getByRole('region', { name: /POI一覧/ }).getByRole('row')).toHaveCount(11);
  for (const name of ['価格変更', 'POI一括インポート', '削除', 'POIを登録']) {
    await expect(tp.getByRole('button', { name, exact: true })).toHaveCount(0);
  }
  await expect(tp.getByRole('button', { name: /を削除$/ })).toHaveCount(0);
  await trialContext.close();

  // The provider deletes the dataset and lands on /datasets without it.
  await pp.getByRole('button', { name: '削除', exact: true }).click();
  await pp.getByRole('dialog', { name: 'データセットを削除' }).getByRole('button', { name: '削除する' }).click();
  await expect(pp.getByText('データセットを削除しました').first()).toBeVisible();
  await expect(pp).toHaveURL(/\/datasets$/);
  await expect(pp.getByRole('article', { name: datasetName })).toHaveCount(0);
  await providerContext.close();
});

test('a trial user sees an explanation on /datasets and a data provider the create button', async ({ page, request }) => {
  await useSession(page, await signInByApi(request, uniqueEmail('plainds')));
  await page.goto('/datasets');
  await expect(page.getByText('POIデータセットの作成と管理は、データプロバイダーとプラットフォーム管理者のアカウントでご利用いただけます。')).toBeVisible();
  await expect(page.getByRole('link', { name: '公開データセットを見る' })).toBeVisible();
});

test('a data provider creates a dataset from /datasets without editor pickers', async ({ page, request }) => {
  const provider = await makeProvider(request, { displayName: '大阪POI' });
  await useSession(page, provider);
  await page.goto('/datasets');
  await expect(page.getByText('管理しているデータセットはまだありません')).toBeVisible();
  await page.getByRole('button', { name: 'データセットを作成' }).first().click();
  const modal = page.getByRole('dialog', { name: 'データセットを作成' });
  await expect(modal.getByLabel('POI編集者(データプロバイダー)')).toHaveCount(0);
  await modal.getByLabel('データセット名').fill('大阪の公園');
  await modal.getByLabel('1検索あたりの価格(円)').fill('0');
  await modal.getByRole('button', { name: '作成' }).click();
  await expect(page.getByRole('article', { name: '大阪の公園' })).toBeVisible();
  await expect(page.getByRole('article', { name: '大阪の公園' }).getByText('説明なし')).toBeVisible();
  await expect(page.getByRole('article', { name: '大阪の公園' }).getByText('¥0.00')).toBeVisible();
});
