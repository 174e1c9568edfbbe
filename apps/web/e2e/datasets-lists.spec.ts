import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { expectAxeClean, expectNoHorizontalScroll } from './support/a11y';
import { adminSession, signInByApi, uniqueEmail, useSession } from './support/auth';
import { pickOption } from './support/combobox';

/** More than 100 datasets, every one reachable on the lists and in every dataset picker. */

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const COUNT = 130;
const PAGE = 24;

/** Full-width form of ASCII letters, digits and '-' (what NFKC folds back). */
const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

async function cardNames(page: Page): Promise<string[]> {
  return page.getByRole('article').evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label') ?? ''));
}

/** Follows 次へ from the current page to the last, collecting every card's name. */
async function collectByPaging(page: Page): Promise<string[]> {
  const names: string[] = [];
  for (;;) {
    await expect(page.getByRole('article').first()).toBeVisible();
    const shown = await cardNames(page);
    names.push(...shown);
    const next = page.getByRole('navigation', { name: 'データセット一覧のページ送り' }).getByRole('link', { name: '次へ' });
    if ((await next.count()) === 0) return names;
    const before = page.url();
    await next.click();
    await expect(page).not.toHaveURL(before);
    // React Router renders a navigation in a transition: the address changes first, and for a
    // moment the old page is still shown and not yet marked busy. Wait for other cards, then for
    // the new page itself (not the previous one kept while it loads). A pager that showed a
    // page twice would stop here.
    await expect.poll(() => cardNames(page)).not.toEqual(shown);
    await expect(page.locator('ul[aria-busy="true"]')).toHaveCount(0);
  }
}

test('more than 100 datasets: every one reachable by paging and search, pickable everywhere; the URL keeps the view', async ({ page, request }) => {
  test.setTimeout(180_000);
  const tag = `e2e${Date.now().toString(36)}`;
  const login = await signInByApi(request, uniqueEmail('many'));
  const admin = adminSession();
  expect((await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(admin.token), data: { account_type: 'data_provider', reason: 'テスト' } })).ok()).toBe(true);
  const provider = { ...login, user: { ...login.user, account_type: 'data_provider' as const } };

  // Created oldest first with falling numbers: 第129号 is the oldest and the last by name, so
  // it lies past the first 100 in both orders.
  const names: string[] = [];
  const ids = new Map<string, string>();
  for (let i = 0; i < COUNT; i++) {
    const name = `${tag} 第${String(COUNT - 1 - i).padStart(3, '0')}号`;
    const res = await request.post('/console/v1/datasets/public/create', {
      headers: auth(provider.token),
      data: { name, description: i % 10 === 0 ? '駅と空港の位置データ' : null, price_per_search: i % 3 === 0 ? 0 : 1.5 },
    });
    expect(res.ok()).toBe(true);
    names.push(name);
    ids.set(name, (await res.json()).data.dataset_id);
  }
  const oldest = names[0]!; // 第129号
  const poi = await request.post('/console/v1/poi/register', {
    headers: auth(provider.token),
    data: { dataset_id: ids.get(oldest), name: `${tag} 移動するPOI`, latitude: 35.681236, longitude: 139.767125 },
  });
  expect(poi.ok()).toBe(true);

  await useSession(page, provider);
  await page.setViewportSize({ width: 1280, height: 900 });

  // /datasets: 全 130 件, and 次へ reaches every one of them exactly once.
  await page.goto('/datasets');
  await expect(page.getByTestId('dataset-total')).toContainText(`全 ${COUNT} 件`);
  await expect(page.getByRole('article')).toHaveCount(PAGE);
  const paged = await collectByPaging(page);
  expect(paged).toHaveLength(COUNT);
  expect(new Set(paged)).toEqual(new Set(names));
  await expect(page).toHaveURL(/\/datasets\?page=6$/);
  await expect(page.getByRole('article')).toHaveCount(COUNT - 5 * PAGE);
  await expect(page.getByRole('article', { name: oldest })).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/lists-datasets-last-page-1280.png`, fullPage: true });
  await expectAxeClean(page);

  // /marketplace: the run's datasets among everyone's, by keyword (typed in full-width), sorted by
  // name, paged to the end: all 130 again, in name order.
  await page.goto('/marketplace');
  await page.getByLabel('キーワード').fill(fullWidth(tag));
  await expect(page.getByTestId('dataset-total')).toContainText(`全 ${COUNT} 件`);
  await page.getByLabel('並び順').selectOption({ label: '名前順' });
  await expect(page).toHaveURL(new RegExp(`\\?q=${encodeURIComponent(fullWidth(tag))}&sort=name$`));
  const byName = await collectByPaging(page);
  expect(byName).toEqual([...names].sort());

  // A single dataset by search: two words, the number in full-width digits.
  await page.goto('/marketplace');
  await page.getByLabel('キーワード').fill(`${tag}\u3000第１２９号`);
  await expect(page.getByTestId('dataset-total')).toContainText('全 1 件');
  await expect(page.getByRole('article')).toHaveCount(1);
  await expect(page.getByRole('article', { name: oldest })).toBeVisible();
  await page.getByLabel('キーワード').fill(`${tag} 該当なし`);
  await expect(page.getByText('条件に一致するデータセットはありません')).toBeVisible();
  await page.getByRole('button', { name: '条件をクリア' }).click();
  await expect(page).toHaveURL(/\/marketplace$/);
  await expect(page.getByLabel('キーワード')).toHaveValue('');

  // URL state: filter, keyword, sort and page survive a reload; back returns from a detail page
  // and steps back through the pages.
  await page.goto(`/marketplace?type=free&q=${encodeURIComponent(tag)}&sort=name&page=2`);
  const frees = names.filter((_, i) => i % 3 === 0).sort();
  await expect(page.getByTestId('dataset-total')).toContainText(`全 ${frees.length} 件`);
  await expect(page.getByRole('radio', { name: '無料のみ' })).toBeChecked();
  await expect(page.getByLabel('並び順')).toHaveValue('name');
  await expect(page.getByLabel('キーワード')).toHaveValue(tag);
  expect(await cardNames(page)).toEqual(frees.slice(PAGE, 2 * PAGE));
  await page.reload();
  await expect(page.getByRole('article').first()).toBeVisible();
  expect(await cardNames(page)).toEqual(frees.slice(PAGE, 2 * PAGE));
  await page.screenshot({ path: `${SCREENS}/lists-marketplace-1280.png`, fullPage: true });
  await expectAxeClean(page);
  await page.getByRole('article').first().getByRole('link', { name: '詳細を見る' }).click();
  await expect(page).toHaveTitle(/データセット詳細/);
  await page.goBack();
  await expect(page).toHaveURL(/type=free.*sort=name.*page=2|type=free.*page=2/);
  await expect(page.getByRole('article').first()).toBeVisible();
  expect(await cardNames(page)).toEqual(frees.slice(PAGE, 2 * PAGE));
  await page.getByRole('link', { name: 'ページ 1' }).click();
  await expect(page.getByRole('article').first()).toHaveAttribute('aria-label', frees[0]!);
  await page.goBack();
  await expect(page.getByRole('article').first()).toHaveAttribute('aria-label', frees[PAGE]!);
  await expect(page.getByRole('radio', { name: '無料のみ' })).toBeChecked();

  // A page past the end (a stale shared link) offers the last page.
  await page.goto(`/marketplace?q=${encodeURIComponent(tag)}&page=99`);
  await expect(page.getByText('このページにはデータセットがありません')).toBeVisible();
  await page.getByRole('link', { name: '最後のページ(6)へ' }).click();
  await expect(page.getByRole('article')).toHaveCount(COUNT - 5 * PAGE);

  // Phone width: the same screens, nothing sideways, axe clean.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/marketplace?q=${encodeURIComponent(tag)}&sort=price_desc&page=3`);
  await expect(page.getByRole('article').first()).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/lists-marketplace-390.png` });
  await page.getByRole('navigation', { name: 'データセット一覧のページ送り' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENS}/lists-marketplace-390-pager.png` });
  await expectNoHorizontalScroll(page);
  await expectAxeClean(page);
  await page.goto('/datasets?page=3');
  await expect(page.getByRole('article').first()).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/lists-datasets-390.png` });
  await expectNoHorizontalScroll(page);
  await expectAxeClean(page);

  // /poi: the oldest dataset (past the first 100) is picked by typing, with the keyboard.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/poi');
  const picker = page.getByRole('combobox', { name: 'データセット' });
  await picker.fill('第129');
  const option = page.getByRole('option', { name: oldest });
  await expect(option).toBeVisible();
  await expect(page.getByRole('option')).toHaveCount(1);
  await picker.press('ArrowDown');
  await expect(picker).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id'))!);
  await picker.press('Enter');
  await expect(picker).toHaveValue(oldest);
  await expect(picker).toHaveAttribute('aria-expanded', 'false');
  await page.getByRole('button', { name: '検索', exact: true }).click();
  const results = page.getByRole('region', { name: /検索結果/ });
  // The table (≥ lg) and the phone cards are both in the page; one of them is shown.
  await expect(results.getByText(`${tag} 移動するPOI`, { exact: true }).filter({ visible: true }).first()).toBeVisible();
  await expect(results.getByText(oldest, { exact: true }).filter({ visible: true }).first()).toBeVisible();

  // Move target: the second oldest, also past the first 100; Escape closes the list, not the dialog.
  await page.getByRole('button', { name: `${tag} 移動するPOI を移動` }).click();
  const dialog = page.getByRole('dialog', { name: 'POIを移動' });
  const target = dialog.getByRole('combobox', { name: '移動先のデータセット' });
  await target.fill('第12');
  await expect(dialog.getByRole('option', { name: names[1]! })).toBeVisible();
  // The POI's own dataset is not offered.
  await expect(dialog.getByRole('option', { name: oldest })).toHaveCount(0);
  await target.press('Escape');
  await expect(dialog).toBeVisible();
  await expect(target).toHaveAttribute('aria-expanded', 'false');
  await pickOption(dialog, '移動先のデータセット', '第128号', names[1]!);
  await dialog.getByRole('button', { name: '移動する' }).click();
  await expect(page.getByText('POIを移動しました').first()).toBeVisible();
  const moved = await (await request.get(`/console/v1/poi/search?dataset_id=${ids.get(names[1]!)}`, { headers: auth(provider.token) })).json();
  expect(moved.data.pois.map((p: { name: string }) => p.name)).toEqual([`${tag} 移動するPOI`]);

  // The key reveal: the third oldest dataset goes into the curl command.
  await page.goto('/api-keys');
  await page.getByRole('button', { name: 'APIキーを作成' }).first().click();
  const form = page.getByRole('dialog', { name: 'APIキーを作成' });
  await form.getByLabel('キー名').fill('多数のデータセット');
  await form.getByRole('button', { name: '作成' }).click();
  const reveal = page.getByRole('dialog', { name: 'APIキーを作成しました' });
  await expect(reveal.getByTestId('curl-command')).toContainText('dataset_id=');
  await pickOption(reveal, '検索するデータセット', `${fullWidth(tag)} 第127号`, names[2]!);
  await expect(reveal.getByTestId('curl-command')).toContainText(ids.get(names[2]!)!);
  await page.setViewportSize({ width: 390, height: 844 });
  await reveal.getByRole('combobox', { name: '検索するデータセット' }).fill(tag);
  await expect(reveal.getByRole('listbox')).toBeVisible();
  await expect(reveal.getByText(/全 1[0-9]{2} 件中 20 件を表示しています/)).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/lists-picker-390.png` });
  await expectNoHorizontalScroll(page);
  await expectAxeClean(page);
});
