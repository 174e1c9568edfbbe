import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { boundsOf, curlExample, cursorWalkExample, errorsOf, fieldsOf, headersOf, javascriptExample, publicEndpoints, pythonExample, samplesOf, typeLabel, type ExampleValue, type OpenApiDocument } from './openapi-view';

const doc: OpenApiDocument = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/console/v1/user': { get: { summary: 'console' } },
    '/api/v1/poi/search': {
      get: {
        summary: '検索',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: {
                      type: 'object',
                      properties: { pois: { type: 'array', description: 'POI', items: { type: 'object', properties: { name: { type: 'string' }, phone: { type: 'string', nullable: true } } } } },
                    },
                  },
                },
              },
            },
          },
          '402': {
            description: 'PAYMENT_REQUIRED: 有料データセット',
            headers: { 'X-Request-Id': { description: 'ID' } },
            content: { 'application/json': { examples: { trial: { summary: 'トライアル', value: { success: false } } } } },
          },
          '429': { description: 'RATE_LIMITED: 多すぎる', headers: { 'X-Request-Id': { description: 'ID' }, 'Retry-After': { description: '秒' } } },
        },
      },
    },
  },
};

describe('openapi-view', () => {
  it('picks the public endpoints and reads their parameters, fields and errors', () => {
    const [endpoint, ...rest] = publicEndpoints(doc);
    expect(rest).toHaveLength(0);
    expect(endpoint).toMatchObject({ method: 'GET', path: '/api/v1/poi/search' });
    expect(boundsOf(endpoint!.operation.parameters![0]!.schema)).toBe('1〜100、既定値 20');
    expect(boundsOf({ type: 'array', minItems: 1, maxItems: 10 })).toBe('1〜10件');
    expect(boundsOf({ type: 'string', maxLength: 100 })).toBe('最大100文字');
    expect(typeLabel({ type: 'array', items: { type: 'string', format: 'uuid' } })).toBe('string (UUID)[]');
    expect(fieldsOf(endpoint!.operation.responses!['200']!.content!['application/json']!.schema)).toEqual([
      { path: 'data', type: 'object', description: '' },
      { path: 'data.pois', type: 'object[]', description: 'POI' },
      { path: 'data.pois[].name', type: 'string', description: '' },
      { path: 'data.pois[].phone', type: 'string | null', description: '' },
    ]);
    expect(errorsOf(endpoint!.operation)).toEqual([
      { status: '402', code: 'PAYMENT_REQUIRED', description: '有料データセット' },
      { status: '429', code: 'RATE_LIMITED', description: '多すぎる' },
    ]);
    expect(samplesOf(endpoint!.operation)).toEqual([{ status: '402', name: 'trial', summary: 'トライアル', json: '{\n  "success": false\n}' }]);
    expect(headersOf(endpoint!.operation)).toEqual([
      { name: 'X-Request-Id', description: 'ID', statuses: ['402', '429'] },
      { name: 'Retry-After', description: '秒', statuses: ['429'] },
    ]);
    expect(headersOf({ responses: { '200': { headers: { 'X-Request-Id': {} } }, '400': { headers: { 'X-Request-Id': {} } } } })).toEqual([
      { name: 'X-Request-Id', description: '', statuses: ['すべて'] },
    ]);
  });

  it('writes examples with the key from the environment', () => {
    const input = { server: 'http://localhost:8080', path: '/api/v1/poi/search', params: [['keyword', 'カフェ']] as Array<[string, string]> };
    expect(curlExample(input)).toBe(
      ': "${POI_API_KEY:?環境変数 POI_API_KEY を設定してください: APIキー。コンソールの「APIキー管理」(/api-keys)で発行できます}" &&\n' +
        'curl -G "http://localhost:8080/api/v1/poi/search" \\\n  -H "X-API-Key: $POI_API_KEY" \\\n  --data-urlencode "keyword=カフェ"',
    );
    expect(pythonExample(input)).toContain('"keyword": "カフェ",');
    expect(pythonExample(input)).toContain('os.environ["POI_API_KEY"]');
    const withDataset = { ...input, params: [['dataset_id', { env: 'POI_DATASET_ID' }], ['keyword', 'カフェ']] as Array<[string, string | { env: string }]> };
    expect(curlExample(withDataset)).toContain('--data-urlencode "dataset_id=$POI_DATASET_ID"');
    expect(javascriptExample(withDataset)).toContain('dataset_id: process.env.POI_DATASET_ID,');
    expect(pythonExample(withDataset)).toContain('"dataset_id": os.environ["POI_DATASET_ID"],');
  });

  it('writes English bounds, header rows and examples for /docs/api/en (Accept-Language: en, English stops)', async () => {
    expect(boundsOf({ minimum: 1, maximum: 100, default: 20 }, 'en')).toBe('1–100, default 20');
    expect(boundsOf({ maxLength: 100, minItems: 1, maxItems: 10 }, 'en')).toBe('max. 100 characters, 1–10 items');
    expect(headersOf({ responses: { '200': { headers: { 'X-Request-Id': {} } }, '400': { headers: { 'X-Request-Id': {} } } } }, 'en')).toEqual([
      { name: 'X-Request-Id', description: '', statuses: ['all'] },
    ]);
    const input = { server: 'http://127.0.0.1:9', path: '/api/v1/poi/search', params: [['dataset_id', { env: 'POI_DATASET_ID' }]] as Array<[string, ExampleValue]>, language: 'en' as const };
    const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;
    for (const code of [curlExample(input), javascriptExample(input), pythonExample(input), cursorWalkExample(input)]) {
      expect(code).toMatch(/Accept-Language/);
      expect(code).not.toMatch(japanese);
    }
    expect(curlExample(input)).toContain('-H "Accept-Language: en"');
    const res = spawnSync('bash', ['-c', curlExample(input)], { env: { PATH: process.env.PATH, POI_API_KEY: 'poi_live_x' }, encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('Set the environment variable POI_DATASET_ID: the ID of the dataset to search (required)');
    // The Japanese examples stay as they were.
    expect(curlExample({ ...input, language: 'ja' })).not.toContain('Accept-Language');
  });

  describe('run with only POI_API_KEY set', () => {
    const input = { server: 'http://127.0.0.1:9', path: '/api/v1/poi/search', params: [['dataset_id', { env: 'POI_DATASET_ID' }], ['keyword', 'カフェ']] as Array<[string, ExampleValue]> };
    const explanation = '環境変数 POI_DATASET_ID を設定してください: 検索するデータセットのID(必須)。マーケットプレイス(/marketplace)のカードをクリックするとコピーできます';
    const env = { PATH: process.env.PATH, POI_API_KEY: 'poi_live_x' };
    const run = (command: string, args: string[]) => spawnSync(command, args, { env, encoding: 'utf8' });

    it('curl stops before sending anything and says what POI_DATASET_ID is and where to copy it', () => {
      const res = run('bash', ['-c', curlExample(input)]);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toContain(`POI_DATASET_ID: ${explanation}`);
      expect(res.stderr).not.toContain('curl');
      // Both set: the checks pass and curl runs (and fails on the closed port, not on the checks).
      const both = spawnSync('bash', ['-c', curlExample(input)], { env: { ...env, POI_DATASET_ID: 'd' }, encoding: 'utf8' });
      expect(both.stderr).not.toContain('設定してください');
      expect(both.status).toBe(7);
    });

    it('JavaScript and the cursor walk throw the explanation before fetching', async () => {
      for (const code of [javascriptExample(input), cursorWalkExample(input)]) {
        const fetched: unknown[] = [];
        const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<void>;
        await expect(new AsyncFunction('process', 'fetch', code)({ env }, (...a: unknown[]) => fetched.push(a))).rejects.toThrow(explanation);
        expect(fetched).toEqual([]);
      }
    });

    it('Python exits with the explanation', () => {
      const res = run('python3', ['-c', pythonExample(input).replace('import requests', '')]);
      expect(res.status).toBe(1);
      expect(res.stderr.trim()).toBe(explanation);
    });
  });
});
