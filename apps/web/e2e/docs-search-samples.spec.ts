import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { SEARCH_SAMPLES } from '@poi/shared/search-samples';
import { auth, makeProvider } from './support/api';

// /docs/api shows one curl per map and output option of the search (bbox, tags and category,
// GeoJSON, fields); each runs as pasted against the server and does what its title says.

test('each capability sample on /docs/api runs as pasted, in Japanese and English', async ({ page, request }) => {
  const login = await makeProvider(request, { prefix: 'docsvp' });
  const created = await request.post('/console/v1/datasets/public/create', { headers: auth(login.token), data: { name: `Viewport docs ${Date.now()}`, price_per_search: 0 } });
  const id = (await created.json()).data.dataset_id as string;
  for (const poi of [
    { name: 'カフェ 丸の内', latitude: 35.6812, longitude: 139.7671, category: 'カフェ', tags: ['Wi-Fi', '電源あり'] },
    { name: 'カフェ 新宿', latitude: 35.6909, longitude: 139.7003, category: 'カフェ', tags: ['電源あり'] },
  ]) {
    const res = await request.post('/console/v1/poi/register', { headers: auth(login.token), data: { dataset_id: id, ...poi } });
    expect(res.ok(), await res.text()).toBe(true);
  }
  const key = (await (await request.post('/console/v1/api-keys', { headers: auth(login.token), data: { name: 'docs samples' } })).json()).data.key as string;

  for (const language of ['ja', 'en'] as const) {
    await page.goto(language === 'en' ? '/docs/api?lang=en' : '/docs/api');
    const samples = page.getByTestId('search-samples');
    await expect(samples).toBeVisible();
    for (const sample of SEARCH_SAMPLES) {
      const curl = (await samples.getByLabel(sample.title[language], { exact: true }).textContent())!;
      const body = JSON.parse(execFileSync('bash', ['-c', curl], { env: { ...process.env, POI_API_KEY: key, POI_DATASET_ID: id }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
      const pois: Array<Record<string, unknown>> = sample.id === 'geojson' ? body.features.map((f: { properties: object }) => f.properties) : body.data.pois;
      // 新宿 lies outside the box and lacks Wi-Fi; fields leaves four fields.
      expect(pois.map((p) => p.name).sort(), `${language} ${sample.id}`).toEqual(sample.id === 'fields' ? ['カフェ 丸の内', 'カフェ 新宿'] : ['カフェ 丸の内']);
      if (sample.id === 'fields') expect(pois.map((p) => Object.keys(p))).toEqual(pois.map(() => ['poi_id', 'name', 'latitude', 'longitude']));
      if (sample.id === 'geojson') expect(body.type).toBe('FeatureCollection');
    }
  }
});
