import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@poi/shared/messages';
import { buildApp } from '../src/app';
import { createLifecycle } from '../src/modules/health/lifecycle';
import { listenEarly } from '../src/modules/health/startup-listener';
import { setBuildPageSize } from '../src/modules/pois/search-index';
import { buildAppOn, createScratchDatabase, createTestContext, freePort, type TestContext } from './helpers';

/**
 * The orchestrator's probes (docs/operations.md "Health probes and shutdown"): /livez answers 200
 * whatever the dependencies do; /readyz answers 503 with a reason while the process starts, while
 * the search index's start-up build runs, while the database is unreachable and while draining,
 * and 200 otherwise. The real process (early listener, SIGTERM) is tested in server-lifecycle.test.ts.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probe(app: FastifyInstance, url: '/readyz' | '/livez') {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as { status: string; reason?: string; message?: string }, headers: res.headers };
}

const POIS = `SELECT 'P' || i, 35.6 + i * 0.00001, 139.7 + i * 0.00001, '{}'::text[], 'p' || i, '{}'::text[], 'p' || i, 1 FROM generate_series(1, $1::int) AS i`;
const POI_COLUMNS = 'name, latitude, longitude, tags, search_text, search_bigrams, search_name, search_version';

/** A dataset and its POIs written with SQL in one statement: the index first hears of it with all its rows there. */
async function seedDataset(ctx: TestContext, n: number): Promise<string> {
  const [row] = await ctx.query<{ id: string }>(
    `WITH d AS (INSERT INTO datasets (name, price_per_search, is_platform_dataset) VALUES ('readiness', 0.25, true) RETURNING id),
     p AS (INSERT INTO pois (dataset_id, ${POI_COLUMNS}) SELECT d.id, q.* FROM d, (${POIS}) AS q)
     SELECT id FROM d`,
    [n],
  );
  return row!.id;
}

describe('health probes', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    setBuildPageSize(undefined);
    await ctx?.close();
  });

  it('is ready once the index has listed its datasets; /livez is 200 and neither is cached', async () => {
    let readiness = await probe(ctx.app, '/readyz');
    const seen = new Set<string>();
    const at = Date.now();
    while (readiness.status !== 200 && Date.now() - at < 5_000) {
      seen.add(`${readiness.status} ${readiness.body.reason}`);
      await sleep(10);
      readiness = await probe(ctx.app, '/readyz');
    }
    expect(readiness.status).toBe(200);
    expect(readiness.body).toEqual({ status: 'ready' });
    expect(readiness.headers['cache-control']).toBe('no-store');
    // Before that, only the index's start-up could hold it back.
    expect([...seen].filter((s) => s !== '503 search_index_building')).toEqual([]);
    const liveness = await probe(ctx.app, '/livez');
    expect(liveness).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(liveness.headers['cache-control']).toBe('no-store');
    // /healthz is unchanged.
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', database: expect.any(String) });
  });

  it('answers 503 search_index_building until the start-up build is over', async () => {
    await seedDataset(ctx, 300);
    // One row per page: the build takes a few hundred round trips.
    setBuildPageSize(1);
    const app = await buildAppOn(ctx.database);
    try {
      const early = await probe(app, '/readyz');
      expect(early.status).toBe(503);
      expect(early.body).toEqual({ status: 'not_ready', reason: 'search_index_building', message: messages.searchIndexBuilding });
      expect(early.headers['retry-after']).toBe('1');
      expect((await probe(app, '/livez')).status).toBe(200);
      let readiness = early;
      let stillBuilding = 0;
      while (readiness.status === 503) {
        expect(readiness.body.reason).toBe('search_index_building');
        if (app.searchIndex!.state().building > 0) stillBuilding += 1;
        await sleep(20);
        readiness = await probe(app, '/readyz');
      }
      expect(stillBuilding).toBeGreaterThan(0);
      expect(readiness.status).toBe(200);
      const state = app.searchIndex!.state();
      expect(state).toMatchObject({ startedUp: true, building: 0 });
      expect(state.ready).toBeGreaterThanOrEqual(1);
    } finally {
      setBuildPageSize(undefined);
      await app.close();
    }
  }, 60_000);

  it('answers 503 starting, migrating and draining as the lifecycle says; draining answers close their connection', async () => {
    const lifecycle = createLifecycle();
    // The lifecycle reaches the app through buildApp's options, as server.ts passes it.
    const withPhases = await buildApp(ctx.app.config, { database: ctx.database, lifecycle });
    await withPhases.ready();
    try {
      expect((await probe(withPhases, '/readyz')).body).toEqual({ status: 'not_ready', reason: 'starting', message: messages.serverStarting });
      lifecycle.migrating(true);
      expect((await probe(withPhases, '/readyz')).body).toEqual({ status: 'not_ready', reason: 'migrating', message: messages.databaseMigrating });
      lifecycle.migrating(false);
      lifecycle.serving();
      await withPhases.searchIndex!.whenIdle();
      let readiness = await probe(withPhases, '/readyz');
      for (let i = 0; readiness.status !== 200 && i < 200; i++) {
        await sleep(10);
        readiness = await probe(withPhases, '/readyz');
      }
      expect(readiness.status).toBe(200);
      expect(readiness.headers.connection).not.toBe('close');
      lifecycle.drain();
      const draining = await probe(withPhases, '/readyz');
      expect(draining.status).toBe(503);
      expect(draining.body).toEqual({ status: 'not_ready', reason: 'draining', message: messages.serverDraining });
      expect(draining.headers.connection).toBe('close');
      // Every answer closes its connection while draining, liveness included (still 200).
      const liveness = await probe(withPhases, '/livez');
      expect(liveness.status).toBe(200);
      expect(liveness.headers.connection).toBe('close');
      // A draining process does not come back.
      lifecycle.serving();
      expect((await probe(withPhases, '/readyz')).body.reason).toBe('draining');
    } finally {
      await withPhases.close();
    }
  });
});

describe('health probes with the database unreachable', () => {
  it('answers 503 database_unreachable (checked once a second) while /livez stays 200 without touching the database', async () => {
    const scratch = await createScratchDatabase();
    const database = await scratch.open();
    let app: FastifyInstance | undefined;
    try {
      app = await buildAppOn(database, { SEARCH_INDEX_MAX_MB: '0' });
      expect((await probe(app, '/readyz')).status).toBe(200);
      // The database goes away (PGlite: closed; PostgreSQL: its pools ended).
      await database.close();
      const at = Date.now();
      let readiness = await probe(app, '/readyz');
      // The verdict of the last check is kept for at most a second.
      while (readiness.status === 200) {
        expect(Date.now() - at).toBeLessThan(1_500);
        await sleep(50);
        readiness = await probe(app, '/readyz');
      }
      expect(readiness.status).toBe(503);
      expect(readiness.body).toEqual({ status: 'not_ready', reason: 'database_unreachable', message: messages.databaseUnavailable });
      for (let i = 0; i < 5; i++) expect(await probe(app, '/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(503);
    } finally {
      await app?.close().catch(() => undefined);
      await database.close().catch(() => undefined);
      await scratch.drop();
    }
  });
});

describe('the early listener (before the app is built)', () => {
  function get(port: number, path: string): Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown>, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers /livez 200, /readyz 503 with the phase and anything else 503 in Japanese, and gives the port back on close', async () => {
    const port = await freePort();
    const lifecycle = createLifecycle();
    const early = await listenEarly({ port, host: '127.0.0.1', lifecycle });
    try {
      expect(await get(port, '/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const starting = await get(port, '/readyz');
      expect(starting).toMatchObject({ status: 503, body: { status: 'not_ready', reason: 'starting', message: messages.serverStarting } });
      expect(starting.headers).toMatchObject({ connection: 'close', 'cache-control': 'no-store', 'retry-after': '1' });
      lifecycle.migrating(true);
      expect((await get(port, '/readyz')).body).toMatchObject({ reason: 'migrating', message: messages.databaseMigrating });
      expect(await get(port, '/api/v1/poi/search?dataset_id=x')).toMatchObject({
        status: 503,
        body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: messages.databaseMigrating } },
      });
    } finally {
      await early.close();
    }
    // The port is free again: the app listens on it next.
    const again = await listenEarly({ port, host: '127.0.0.1', lifecycle });
    await again.close();
  });
});
