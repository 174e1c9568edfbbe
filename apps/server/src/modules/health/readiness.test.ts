import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import type { SearchIndex, SearchIndexState } from '../pois/search-index';
import { createLifecycle } from './lifecycle';
import { createReadinessCheck } from './readiness';

/** A database whose `SELECT 1` is counted and answers as told (resolve, fail, or never). */
function fakeDatabase(engine: Database['engine']) {
  const calls = { n: 0 };
  let answer: 'ok' | 'fail' | 'hang' = 'ok';
  const db = {
    execute: () => {
      calls.n += 1;
      if (answer === 'ok') return Promise.resolve({ rows: [] });
      if (answer === 'fail') return Promise.reject(new Error('connect ECONNREFUSED'));
      return new Promise(() => {});
    },
  };
  return { database: { db, engine } as unknown as Database, calls, set: (a: typeof answer) => (answer = a) };
}

function fakeIndex(state: Partial<SearchIndexState>) {
  const current: Partial<SearchIndexState> = { enabled: true, startedUp: false, building: 0, ...state };
  return { index: { state: () => current as SearchIndexState } as SearchIndex, current };
}

describe('readiness', () => {
  it('waits for the start-up build of the index, then no later build takes the instance out of rotation', async () => {
    const { database } = fakeDatabase('postgres');
    const { index, current } = fakeIndex({});
    const ready = createReadinessCheck({ database, lifecycle: createLifecycle('serving'), searchIndex: index });
    // Datasets not listed yet.
    expect(await ready()).toMatchObject({ ready: false, reason: 'search_index_building' });
    Object.assign(current, { startedUp: true, building: 3 });
    expect(await ready()).toMatchObject({ ready: false, reason: 'search_index_building' });
    Object.assign(current, { building: 0 });
    expect(await ready()).toEqual({ ready: true });
    // A dataset imported later is built while the database answers its searches: still ready.
    Object.assign(current, { building: 1 });
    expect(await ready()).toEqual({ ready: true });
    // A restart of the index's start-up (a long lag) does not either.
    Object.assign(current, { startedUp: false });
    expect(await ready()).toEqual({ ready: true });
  });

  it('an index turned off (or none) is never waited for', async () => {
    const { database } = fakeDatabase('postgres');
    expect(await createReadinessCheck({ database, lifecycle: createLifecycle('serving'), searchIndex: undefined })()).toEqual({ ready: true });
    const { index } = fakeIndex({ enabled: false });
    expect(await createReadinessCheck({ database, lifecycle: createLifecycle('serving'), searchIndex: index })()).toEqual({ ready: true });
  });

  it('checks the database at most once a second, shared by the probes meanwhile', async () => {
    const { database, calls, set } = fakeDatabase('postgres');
    let now = 1_000_000;
    const ready = createReadinessCheck({ database, lifecycle: createLifecycle('serving'), searchIndex: undefined, now: () => now });
    await Promise.all([ready(), ready(), ready()]);
    expect(calls.n).toBe(1);
    set('fail');
    now += 999;
    expect(await ready()).toEqual({ ready: true });
    expect(calls.n).toBe(1);
    now += 1;
    expect(await ready()).toMatchObject({ ready: false, reason: 'database_unreachable', message: expect.stringContaining('データベース') });
    expect(calls.n).toBe(2);
    set('ok');
    now += 1_000;
    expect(await ready()).toEqual({ ready: true });
    expect(calls.n).toBe(3);
  });

  it('a database that does not answer within a second is unreachable on PostgreSQL, busy (ready) on PGlite', async () => {
    for (const engine of ['postgres', 'pglite'] as const) {
      const { database, set } = fakeDatabase(engine);
      set('hang');
      const at = Date.now();
      const verdict = await createReadinessCheck({ database, lifecycle: createLifecycle('serving'), searchIndex: undefined })();
      expect(Date.now() - at).toBeLessThan(1_500);
      expect(verdict).toEqual(engine === 'postgres' ? expect.objectContaining({ ready: false, reason: 'database_unreachable' }) : { ready: true });
    }
  });

  it('the phase comes first: starting, migrating and draining answer without touching the database', async () => {
    const { database, calls } = fakeDatabase('postgres');
    const lifecycle = createLifecycle();
    const ready = createReadinessCheck({ database, lifecycle, searchIndex: undefined });
    expect(await ready()).toMatchObject({ ready: false, reason: 'starting' });
    lifecycle.migrating(true);
    expect(await ready()).toMatchObject({ ready: false, reason: 'migrating' });
    lifecycle.migrating(false);
    expect(await ready()).toMatchObject({ ready: false, reason: 'starting' });
    lifecycle.drain();
    expect(await ready()).toMatchObject({ ready: false, reason: 'draining' });
    lifecycle.serving();
    lifecycle.migrating(true);
    expect(await ready()).toMatchObject({ ready: false, reason: 'draining' });
    expect(calls.n).toBe(0);
  });
});
