import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { expectAxeClean, expectNoHorizontalScroll, tapTargetProblems } from './support/a11y';
import { auth, makeProvider } from './support/api';

const SCREENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '.artifacts/screens');

/**
 * The English page's text, but what is data or another language on purpose: code blocks and
 * sample answers (POI names are Japanese data), elements marked with another lang (the switch
 * to 日本語), and Japanese quoted as sample input ("東京タワー").
 */
async function translatedText(page: Page): Promise<string> {
  return page.locator('main [lang="en"]').first().evaluate((root) => {
    const copy = root.cloneNode(true) as HTMLElement;
    copy.querySelectorAll('pre, [lang]:not([lang="en"])').forEach((el) => el.remove());
    return (copy.textContent ?? '').replace(/"[^"]*"/g, '');
  });
}

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]+/g;

test.describe('API reference in English (/docs/api?lang=en)', () => {
  test('renders the reference in English from /openapi.json?lang=en, with English runnable examples and a switch to Japanese and back', async ({ page }) => {
    await page.goto('/docs/api?lang=en');
    await expect(page).toHaveTitle(/^API reference \| POI Cloud$/);
    await expect(page.getByRole('heading', { level: 1, name: 'POI Cloud public search API' })).toBeVisible();
    // The reference itself arrives with the document: its English summary and error situations.
    await expect(page.getByText('Search POIs (API key, billed per search)').first()).toBeVisible();
    await expect(page.getByText('the API key is missing, malformed, unknown, revoked or expired').first()).toBeVisible();
    await expect(page.locator('main [lang="en"]')).toHaveCount(1);

    const text = await translatedText(page);
    expect(text.length).toBeGreaterThan(5000);
    expect(text.match(JAPANESE) ?? []).toEqual([]);

    // The runnable examples ask for English errors and stop with English hints.
    const curl = page.getByRole('tabpanel').locator('pre').first();
    await expect(curl).toContainText('-H "Accept-Language: en"');
    await expect(curl).toContainText('Set the environment variable POI_API_KEY');
    // A sample error answer reads as the API answers it in English.
    await expect(page.getByText('"message": "An API key is required.', { exact: false }).first()).toBeVisible();

    await page.getByRole('link', { name: '日本語' }).click();
    await expect(page).toHaveURL(/\/docs\/api$/);
    await expect(page.getByRole('heading', { level: 1, name: 'POI Cloud 公開検索API' })).toBeVisible();
    await expect(page.getByText('POIの検索(APIキー認証・従量課金)').first()).toBeVisible();
    await expect(page.locator('main [lang="ja"]').first()).toBeVisible();
    await page.getByRole('link', { name: 'English' }).click();
    await expect(page).toHaveURL(/\/docs\/api\?lang=en$/);
    await expect(page.getByRole('heading', { level: 1, name: 'POI Cloud public search API' })).toBeVisible();
  });

  test('the English curl example runs as pasted: results, English errors, and an English stop without its variables', async ({ page, request }) => {
    const login = await makeProvider(request, { prefix: 'docsen' });
    const created = await request.post('/console/v1/datasets/public/create', { headers: auth(login.token), data: { name: `English docs ${Date.now()}`, price_per_search: 0 } });
    const id = (await created.json()).data.dataset_id as string;
    const poi = await request.post('/console/v1/poi/register', { headers: auth(login.token), data: { dataset_id: id, name: 'カフェ 丸の内', latitude: 35.681236, longitude: 139.767125 } });
    expect(poi.ok(), await poi.text()).toBe(true);
    const key = (await (await request.post('/console/v1/api-keys', { headers: auth(login.token), data: { name: 'docs en' } })).json()).data.key as string;

    await page.goto('/docs/api?lang=en');
    const curl = (await page.getByLabel('curl example').first().textContent())!;
    const found = JSON.parse(execFileSync('bash', ['-c', curl], { env: { ...process.env, POI_API_KEY: key, POI_DATASET_ID: id }, encoding: 'utf8' }));
    expect(found.data.pois.map((p: { name: string }) => p.name)).toEqual(['カフェ 丸の内']);
    // The same example with an unknown dataset: the error comes back in English.
    const missing = JSON.parse(
      execFileSync('bash', ['-c', curl], { env: { ...process.env, POI_API_KEY: key, POI_DATASET_ID: '00000000-0000-4000-8000-000000000000' }, encoding: 'utf8' }),
    );
    expect(missing.error).toMatchObject({ code: 'NOT_FOUND', message: 'Dataset not found' });
    const stopped = spawnSync('bash', ['-c', curl], { env: { ...process.env, POI_API_KEY: key, POI_DATASET_ID: '' }, encoding: 'utf8' });
    expect(stopped.status).not.toBe(0);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toContain('Set the environment variable POI_DATASET_ID: the ID of the dataset to search (required)');
  });

  test('fits a phone and passes axe (WCAG 2.1 AA) with tap targets large enough', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/docs/api?lang=en');
    await expect(page.getByText('Search POIs (API key, billed per search)').first()).toBeVisible();
    await expectNoHorizontalScroll(page);
    await expectAxeClean(page, '/docs/api?lang=en 390px');
    expect(await tapTargetProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENS}/docs-api-en-390.png`, fullPage: true });
    await page.screenshot({ path: `${SCREENS}/docs-api-en-390-top.png` });
    await page.locator('#errors').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/docs-api-en-390-errors.png` });
  });
});
