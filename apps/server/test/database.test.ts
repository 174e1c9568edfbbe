import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { createScratchDatabase } from './helpers';

describe('PostgreSQL pool', () => {
  it('survives PostgreSQL closing an idle connection and reconnects on the next query', async (ctx) => {
    if (!process.env.TEST_DATABASE_URL) ctx.skip();
    const scratch = await createScratchDatabase();
    const lost: Error[] = [];
    const database = await openDatabase({ url: scratch.env.DATABASE_URL!, onIdleError: (err) => lost.push(err) });
    try {
      const pid = ((await database.db.execute(sql`SELECT pg_backend_pid() AS pid`)).rows[0] as { pid: number }).pid;
      const other = await openDatabase({ url: scratch.env.DATABASE_URL! });
      await other.db.execute(sql`SELECT pg_terminate_backend(${pid})`);
      await other.close();
      const deadline = Date.now() + 5_000;
      while (!lost.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(lost[0]?.message).toMatch(/terminating connection/);
      const again = (await database.db.execute(sql`SELECT 1 AS one`)).rows[0];
      expect(again).toEqual({ one: 1 });
    } finally {
      await database.close();
      await scratch.drop();
    }
  });

  it('lets instances started together on an empty database migrate it one after the other', async (ctx) => {
    if (!process.env.TEST_DATABASE_URL) ctx.skip();
    const scratch = await createScratchDatabase();
    try {
      // createScratchDatabase opens nothing: the database is empty until the first open migrates it.
      const opened = await Promise.allSettled([1, 2, 3].map(() => openDatabase({ url: scratch.env.DATABASE_URL! })));
      expect(opened.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      const databases = opened.map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof openDatabase>>>).value);
      const applied = (await databases[0]!.db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)).rows[0] as { n: number };
      const files = (await import('node:fs')).readdirSync(new URL('../src/db/migrations', import.meta.url)).filter((f) => f.endsWith('.sql'));
      expect(applied.n).toBe(files.length);
      await Promise.all(databases.map((d) => d.close()));
    } finally {
      await scratch.drop();
    }
  });
});
