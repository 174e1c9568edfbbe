import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEvent } from '../src/modules/usage/usage.repository';
import { bearer, buildAppOn, createTestContext, type Actor, type TestContext } from './helpers';

let ctx: TestContext;
let provider: Actor;
let dataset: string;
let apiKey: string;

const TOKEN = 'metrics-token-0123456789abcdef';

/** Every family of ours, by type (docs/operations.md "Metrics"). */
const FAMILIES: Record<string, 'counter' | 'gauge' | 'histogram'> = {
  poi_http_request_duration_seconds: 'histogram',
  poi_public_searches_total: 'counter',
  poi_public_suggests_total: 'counter',
  poi_usage_events_buffered: 'gauge',
  poi_usage_flush_lag_seconds: 'gauge',
  poi_usage_flush_failures_total: 'counter',
  poi_budget_stops_total: 'counter',
  poi_import_rows_total: 'counter',
  poi_import_duration_seconds: 'histogram',
  poi_import_failures_total: 'counter',
  poi_search_index_enabled: 'gauge',
  poi_search_index_bytes: 'gauge',
  poi_search_index_budget_bytes: 'gauge',
  poi_search_index_pois: 'gauge',
  poi_search_index_datasets: 'gauge',
  poi_search_index_change_log_lag_seconds: 'gauge',
  poi_search_index_served_total: 'counter',
  poi_db_pool_clients: 'gauge',
  poi_db_pool_idle_clients: 'gauge',
  poi_db_pool_waiting_requests: 'gauge',
  poi_db_connection_errors_total: 'counter',
  poi_redis_state: 'gauge',
  poi_job_runs_total: 'counter',
  poi_job_failures_total: 'counter',
  poi_job_last_duration_seconds: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  process_cpu_seconds_total: 'counter',
};

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Prometheus' text format (0.0.4), strictly: HELP and TYPE once per family before its samples,
 * each sample `name{label="value",…} number`. Throws on any other line.
 */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (kind === 'HELP') {
        expect(helps.has(name), `HELP twice: ${name}`).toBe(false);
        helps.add(name);
      } else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(rest);
        expect(types.has(name), `TYPE twice: ${name}`).toBe(false);
        types.set(name, rest);
      }
      continue;
    }
    // Values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes "Nan").
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|[Nn][Aa][Nn]|[+-]?Inf)$/.exec(line);
    if (!sample) throw new Error(`not a line of the text format: ${line}`);
    const [, name, labelText, value] = sample as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    if (labelText) {
      const rest = labelText.replace(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g, (_m, k: string, v: string) => {
        labels[k] = v.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
        return '';
      });
      if (rest !== '') throw new Error(`bad labels: ${line}`);
    }
    const family = name.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(name) || types.has(family), `sample before its TYPE: ${line}`).toBe(true);
    samples.push({ name, labels, value: Number(value) });
  }
  return { types, samples };
}

async function scrape(app: FastifyInstance = ctx.app) {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode, res.body).toBe(200);
  return parseExposition(res.body);
}

/** The value of one sample (labels matched exactly, or as a subset with `partial`); undefined when absent. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}, partial = false): number | undefined {
  const hit = samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v) && (partial || Object.keys(s.labels).length === Object.keys(labels).length),
  );
  return hit?.value;
}

/** How much each sample moved while `action` ran. */
async function delta(names: Array<[string, Record<string, string>?]>, action: () => Promise<unknown>, app: FastifyInstance = ctx.app): Promise<number[]> {
  const before = (await scrape(app)).samples;
  await action();
  const after = (await scrape(app)).samples;
  return names.map(([name, labels]) => (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0));
}

function multipart(fields: Record<string, string>, file: { name: string; content: string }) {
  const boundary = `----poi${Math.random().toString(36).slice(2)}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const importCsv = (datasetId: string, csv: string) => {
  const body = multipart({ dataset_id: datasetId, format: 'csv' }, { name: 'pois.csv', content: csv });
  return ctx.app.inject({ method: 'POST', url: '/console/v1/poi/bulk-import', headers: { ...bearer(provider.token), ...body.headers }, payload: body.payload });
};

const search = (query: string, key = apiKey) => ctx.app.inject({ method: 'GET', url: `/api/v1/poi/search?${query}`, headers: { 'x-api-key': key } });

async function newKey(who: Actor): Promise<string> {
  const res = await ctx.api('POST', '/api-keys', who, { name: 'メトリクス' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.key as string;
}

async function waitUntil(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const at = Date.now();
  while (!(await ok())) {
    if (Date.now() - at > timeoutMs) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const index = () => ctx.app.searchIndex!;

beforeAll(async () => {
  ctx = await createTestContext();
  provider = await ctx.newProvider('metrics');
  dataset = await ctx.newDataset(provider, { name: 'メトリクス検証' });
  const res = await importCsv(dataset, ['名称,緯度,経度', 'カフェ丸の内,35.681236,139.767125', 'カフェ八重洲,35.6800,139.7700'].join('\n'));
  expect(res.statusCode, res.body).toBe(200);
  apiKey = await newKey(await ctx.newUser('individual', 'metrics-caller'));
  await index().catchUp();
  await waitUntil('dataset ready in memory', () => index().isReady(dataset));
});

afterAll(async () => {
  await ctx?.close();
});

describe('GET /metrics', () => {
  it('answers every family in the text format, with help texts, and is not in the OpenAPI document', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const { types } = parseExposition(res.body);
    for (const [name, type] of Object.entries(FAMILIES)) expect(types.get(name), name).toBe(type);
    expect(res.body).toMatch(/^# HELP poi_public_searches_total [A-Z][^\n]+$/m);

    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
    expect(Object.keys(doc.paths)).toContain('/api/v1/poi/search');
  });

  it('without METRICS_TOKEN answers loopback clients only, by the socket address, never through a proxy', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect((await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress })).statusCode, remoteAddress).toBe(200);
    }
    for (const [remoteAddress, headers] of [
      ['203.0.113.5', {}],
      ['10.0.0.2', {}],
      ['203.0.113.5', { 'x-forwarded-for': '127.0.0.1' }],
      // A reverse proxy on this host connects from loopback: what it forwards is refused.
      ['127.0.0.1', { 'x-forwarded-for': '203.0.113.5' }],
      ['127.0.0.1', { forwarded: 'for=203.0.113.5' }],
    ] as Array<[string, Record<string, string>]>) {
      const res = await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });
      expect(res.statusCode, `${remoteAddress} ${JSON.stringify(headers)}`).toBe(403);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'FORBIDDEN', message: 'メトリクスはこのサーバー自身(ループバックアドレス)からのみ取得できます。他のホストから取得するには METRICS_TOKEN を設定してください' },
      });
      expect(res.json().error.request_id).toBeTruthy();
      expect(res.body).not.toContain('poi_');
    }
  });

  it('with METRICS_TOKEN requires it as a bearer token, from any address', async () => {
    const app = await buildAppOn(ctx.database, { METRICS_TOKEN: TOKEN });
    try {
      for (const headers of [{}, bearer('wrong-token-0123456789abcdef'), bearer(`${TOKEN}x`), { authorization: TOKEN }] as Array<Record<string, string>>) {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers });
        expect(res.statusCode, JSON.stringify(headers)).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', message: 'メトリクスの取得には正しいトークンが必要です(Authorization: Bearer <METRICS_TOKEN>)' } });
      }
      const ok = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.5', headers: bearer(TOKEN) });
      expect(ok.statusCode).toBe(200);
      expect(parseExposition(ok.body).types.get('poi_public_searches_total')).toBe('counter');
    } finally {
      await app.close();
    }
  });

  it('times requests by route pattern, method and status; requests no route matched are one label', async () => {
    const id = '0f0e0d0c-0b0a-4909-8807-060504030201';
    const count = 'poi_http_request_duration_seconds_count';
    const moved = await delta(
      [
        [count, { route: '/healthz', method: 'GET', status_code: '200' }],
        [count, { route: '/console/v1/datasets/:id', method: 'GET', status_code: '401' }],
        [count, { route: 'unmatched', method: 'GET', status_code: '404' }],
        [count, { route: 'unmatched', method: 'POST', status_code: '404' }],
      ],
      async () => {
        await ctx.app.inject({ method: 'GET', url: '/healthz' });
        expect((await ctx.app.inject({ method: 'GET', url: `/console/v1/datasets/${id}` })).statusCode).toBe(401);
        expect((await ctx.app.inject({ method: 'GET', url: `/api/v1/nothing/${id}` })).statusCode).toBe(404);
        expect((await ctx.app.inject({ method: 'GET', url: `/console/v1/nothing-${id}` })).statusCode).toBe(404);
        expect((await ctx.app.inject({ method: 'POST', url: '/nothing', payload: {} })).statusCode).toBe(404);
      },
    );
    expect(moved).toEqual([1, 1, 2, 1]);
    const { samples } = await scrape();
    // Patterns only: no raw URL (an id, a query) becomes a label.
    expect(samples.filter((s) => Object.values(s.labels).some((v) => v.includes(id) || v.includes('?')))).toEqual([]);
    const bucket = (le: string) => valueOf(samples, 'poi_http_request_duration_seconds_bucket', { route: '/healthz', method: 'GET', status_code: '200', le });
    expect(bucket('+Inf')).toBe(valueOf(samples, count, { route: '/healthz', method: 'GET', status_code: '200' }));
    expect(valueOf(samples, 'poi_http_request_duration_seconds_sum', { route: '/healthz', method: 'GET', status_code: '200' })).toBeGreaterThan(0);
    // Cumulative buckets in order of their bounds, the largest finite one holding every answer (all under 30 s).
    const buckets = samples.filter((s) => s.name === 'poi_http_request_duration_seconds_bucket' && s.labels.route === '/healthz' && s.labels.status_code === '200');
    const bounds = buckets.map((s) => s.labels.le);
    expect(bounds).toEqual(['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '+Inf']);
    const counts = buckets.map((s) => s.value);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
    expect(counts.at(-2)).toBe(counts.at(-1));
  });

  it('counts public searches by the path that answered (index, postgres, cache) and times them under the route pattern', async () => {
    const point = `dataset_id=${dataset}&latitude=35.6812&longitude=139.7671&limit=5`;
    const searches = (path: string) => ['poi_public_searches_total', { path }] as [string, Record<string, string>];
    const timed: [string, Record<string, string>] = ['poi_http_request_duration_seconds_count', { route: '/api/v1/poi/search', method: 'GET', status_code: '200' }];
    const served: [string] = ['poi_search_index_served_total'];

    ctx.app.searchCache.clear();
    await index().catchUp();
    expect(await delta([searches('index'), searches('postgres'), searches('cache'), timed, served], async () => expect((await search(point)).statusCode).toBe(200))).toEqual([1, 0, 0, 1, 1]);

    // A keyword search is PostgreSQL's; its answer is kept at once, so the same search again is the cache's.
    const keyword = `dataset_id=${dataset}&keyword=${encodeURIComponent('カフェ')}`;
    ctx.app.searchCache.clear();
    expect(await delta([searches('index'), searches('postgres'), searches('cache'), timed], async () => expect((await search(keyword)).statusCode).toBe(200))).toEqual([0, 1, 0, 1]);
    expect(await delta([searches('index'), searches('postgres'), searches('cache'), timed], async () => expect((await search(keyword)).statusCode).toBe(200))).toEqual([0, 0, 1, 1]);

    // A refused search is timed under its status and answered by no path.
    const refused = await delta([searches('index'), searches('postgres'), ['poi_http_request_duration_seconds_count', { route: '/api/v1/poi/search', method: 'GET', status_code: '401' }]], async () =>
      expect((await search(point, 'poi_live_nonsense')).statusCode).toBe(401),
    );
    expect(refused).toEqual([0, 0, 1]);
  });

  it('counts suggests by the path that answered (memory, postgres)', async () => {
    const query = `/api/v1/poi/suggest?dataset_id=${dataset}&q=${encodeURIComponent('かふぇ')}`;
    const suggest = () => ctx.app.inject({ method: 'GET', url: query, headers: { 'x-api-key': apiKey } });
    const paths: Array<[string, Record<string, string>]> = [
      ['poi_public_suggests_total', { path: 'memory' }],
      ['poi_public_suggests_total', { path: 'postgres' }],
    ];
    await index().catchUp();
    await index().prepareSuggest([dataset]);
    expect(await delta(paths, async () => expect((await suggest()).statusCode).toBe(200))).toEqual([1, 0]);
    index().setEnabled(false);
    try {
      expect(await delta(paths, async () => expect((await suggest()).statusCode).toBe(200))).toEqual([0, 1]);
    } finally {
      index().setEnabled(true);
    }
  });

  it('reports the usage buffer and the age of its oldest event, back to 0 once flushed', async () => {
    const flushJob = ctx.app.jobs.get('usage-flush')!;
    await flushJob.stop();
    try {
      await ctx.app.usageMeter.flush();
      let { samples } = await scrape();
      expect(valueOf(samples, 'poi_usage_events_buffered')).toBe(0);
      expect(valueOf(samples, 'poi_usage_flush_lag_seconds')).toBe(0);
      for (let i = 0; i < 3; i++) expect((await search(`dataset_id=${dataset}&limit=${i + 1}`)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 60));
      ({ samples } = await scrape());
      expect(valueOf(samples, 'poi_usage_events_buffered')).toBe(3);
      expect(valueOf(samples, 'poi_usage_flush_lag_seconds')).toBeGreaterThanOrEqual(0.05);
      await ctx.app.usageMeter.flush();
      ({ samples } = await scrape());
      expect(valueOf(samples, 'poi_usage_events_buffered')).toBe(0);
      expect(valueOf(samples, 'poi_usage_flush_lag_seconds')).toBe(0);
    } finally {
      flushJob.start();
    }
  });

  it('counts failed usage flushes (and the job failure) on an instance whose flush fails', async () => {
    const app = await buildAppOn(ctx.database);
    try {
      // An event the database refuses (not a UUID): the flush keeps it and fails every time.
      app.usageMeter.record({ ...validEvent(), requestId: 'not-a-uuid' });
      const moved = await delta(
        [['poi_usage_flush_failures_total'], ['poi_job_failures_total', { job: 'usage-flush' }], ['poi_job_runs_total', { job: 'usage-flush' }], ['poi_usage_events_buffered']],
        () => expect(app.jobs.get('usage-flush')!.runNow()).rejects.toThrow(),
        app,
      );
      expect(moved[0]).toBeGreaterThanOrEqual(1);
      expect(moved[1]).toBe(moved[0]);
      expect(moved[2]).toBeGreaterThanOrEqual(1);
      expect(valueOf((await scrape(app)).samples, 'poi_usage_events_buffered')).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('counts budget stops', async () => {
    const paid = await ctx.newDataset(provider, { name: 'メトリクス有料', price: 10 });
    const user = await ctx.newUser('individual', 'metrics-budget');
    const key = await newKey(user);
    // ¥10 a search, ¥11 with tax: the second search would pass the ¥11 budget.
    expect((await ctx.api('POST', '/billing/budget', user, { monthly_limit: 11, hard_stop: true })).statusCode).toBe(200);
    const statuses: number[] = [];
    const moved = await delta([['poi_budget_stops_total']], async () => {
      for (let i = 0; i < 3; i++) statuses.push((await search(`dataset_id=${paid}`, key)).statusCode);
    });
    expect(statuses).toEqual([200, 402, 402]);
    expect(moved).toEqual([2]);
  });

  it('counts imported rows by outcome, times imports and counts failed ones', async () => {
    const target = await ctx.newDataset(provider, { name: 'メトリクス取込' });
    const rows = (outcome: string) => ['poi_import_rows_total', { outcome }] as [string, Record<string, string>];
    const moved = await delta([rows('added'), rows('skipped'), rows('updated'), ['poi_import_duration_seconds_count'], ['poi_import_failures_total', { kind: 'rejected' }]], async () => {
      const res = await importCsv(target, ['名称,緯度,経度', '店A,35,139', '店B,35.1,139.1', '店C,35.2,139.2', '緯度がおかしい店,91,139'].join('\n'));
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(moved).toEqual([3, 1, 0, 1, 0]);

    const failed = await delta([rows('added'), ['poi_import_duration_seconds_count'], ['poi_import_failures_total', { kind: 'rejected' }], ['poi_import_failures_total', { kind: 'error' }]], async () => {
      const res = await importCsv(target, ['名称,緯度,経度', ',91,139'].join('\n'));
      expect(res.statusCode).toBe(400);
    });
    expect(failed).toEqual([0, 0, 1, 0]);
  });

  it('reports the search index: POIs, bytes, datasets by state and the change log lag', async () => {
    // Earlier tests' datasets settled first: one still building when `before` is read would count
    // its POIs in the growth too (seen once on PostgreSQL: 5 instead of 2).
    await index().catchUp();
    await index().whenIdle();
    const before = (await scrape()).samples;
    const other = await ctx.newDataset(provider, { name: 'メトリクス索引' });
    expect((await importCsv(other, ['名称,緯度,経度', '索引A,34,135', '索引B,34.1,135.1'].join('\n'))).statusCode).toBe(200);
    await index().catchUp();
    await waitUntil('new dataset ready in memory', () => index().isReady(other));
    const after = (await scrape()).samples;
    const grew = (name: string, labels: Record<string, string> = {}) => (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0);
    expect(grew('poi_search_index_pois')).toBe(2);
    expect(grew('poi_search_index_datasets', { state: 'ready' })).toBe(1);
    expect(grew('poi_search_index_bytes')).toBeGreaterThan(0);
    expect(valueOf(after, 'poi_search_index_enabled')).toBe(1);
    expect(valueOf(after, 'poi_search_index_budget_bytes')).toBe(ctx.app.config.searchIndexMaxMb * 1024 * 1024);
    expect(valueOf(after, 'poi_search_index_datasets', { state: 'over_budget' })).toBe(0);
    const lag = valueOf(after, 'poi_search_index_change_log_lag_seconds');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(5);
  });

  it('counts periodic job runs and failures by job, with the last run\'s duration', async () => {
    const job = (name: string) => [name, { job: 'housekeeping' }] as [string, Record<string, string>];
    const moved = await delta([job('poi_job_runs_total'), job('poi_job_failures_total')], () => ctx.app.jobs.get('housekeeping')!.runNow());
    expect(moved).toEqual([1, 0]);
    const { samples } = await scrape();
    expect(valueOf(samples, 'poi_job_last_duration_seconds', { job: 'housekeeping' })).toBeGreaterThan(0);
    // The usage flush runs on its own timer: counted once it has fired (a fast run may get here first).
    await waitUntil('usage-flush counted after its timer fired', async () => (valueOf((await scrape()).samples, 'poi_job_runs_total', { job: 'usage-flush' }) ?? 0) >= 1);
  });

  it('reports the process: event-loop lag and CPU', async () => {
    const { samples } = await scrape();
    expect(valueOf(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });

  it('reports the Redis circuit as one state of three', async () => {
    const state = (samples: Sample[]) => Object.fromEntries(['ok', 'degraded', 'not_configured'].map((s) => [s, valueOf(samples, 'poi_redis_state', { state: s })]));
    expect(state((await scrape()).samples)).toEqual({ ok: 0, degraded: 0, not_configured: 1 });
    const down = await buildAppOn(ctx.database, { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    try {
      expect(state((await scrape(down)).samples)).toEqual({ ok: 0, degraded: 1, not_configured: 0 });
    } finally {
      await down.close();
    }
    const url = process.env.REDIS_URL;
    if (!url) return;
    const up = await buildAppOn(ctx.database, { REDIS_URL: url });
    try {
      await waitUntil('Redis ready', () => up.redis?.state() === 'ok');
      expect(state((await scrape(up)).samples)).toEqual({ ok: 1, degraded: 0, not_configured: 0 });
    } finally {
      await up.close();
    }
  });

  it('reports the PostgreSQL pools and counts lost connections (PGlite: errors only, always 0)', async () => {
    const { samples } = await scrape();
    if (ctx.database.engine === 'pglite') {
      expect(valueOf(samples, 'poi_db_connection_errors_total')).toBe(0);
      expect(samples.filter((s) => s.name.startsWith('poi_db_pool_'))).toEqual([]);
      return;
    }
    expect(valueOf(samples, 'poi_db_pool_clients', { pool: 'main' })).toBeGreaterThan(0);
    expect(valueOf(samples, 'poi_db_pool_idle_clients', { pool: 'main' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'poi_db_pool_waiting_requests', { pool: 'main' })).toBe(0);
    expect(valueOf(samples, 'poi_db_pool_clients', { pool: 'knn' })).toBeGreaterThanOrEqual(0);
    const errorsBefore = valueOf(samples, 'poi_db_connection_errors_total')!;
    // The pools' idle connections killed from outside (a restart would do the same).
    const admin = new pg.Client({ connectionString: ctx.database.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    } finally {
      await admin.end();
    }
    await waitUntil('lost connections counted', async () => (valueOf((await scrape()).samples, 'poi_db_connection_errors_total') ?? 0) > errorsBefore);
  });
});

/** A well-formed usage event of nobody in particular (its ids are what a refused write needs to differ in). */
function validEvent() {
  const at = new Date();
  return {
    requestId: '00000000-0000-4000-8000-000000000000',
    occurredAt: at,
    day: at.toISOString().slice(0, 10),
    userId: '00000000-0000-4000-8000-000000000001',
    apiKeyId: '00000000-0000-4000-8000-000000000002',
    accountType: 'individual',
    pricingVersionId: 1,
    datasetIds: [dataset],
    datasetPricesSen: [0],
    datasetSharesBp: [10_000],
    datasetRecipientIds: ['platform'],
    baseFeeSen: 0,
    amountSen: 0,
    free: true,
  } satisfies UsageEvent;
}
