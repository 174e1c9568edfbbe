import { expect, test, type APIRequestContext } from '@playwright/test';
import pg from 'pg';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { extractCode, waitForMail } from './mailbox';
import { startServerProcess, type ServerProcess } from './server-process';
import { startSmtpSink } from './smtp-sink';

/**
 * A spec's own server on a PostgreSQL database of its own (E2E_PG_URL, by default the local
 * postgres://postgres@127.0.0.1:5432, as CI's route tests use), for specs that put rows into
 * states the browser cannot reach quickly (an overdue card invoice, failed charges).
 */
export const PG_BASE = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

async function reachable(): Promise<boolean> {
  const probe = new pg.Client({ connectionString: `${PG_BASE}/postgres`, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
    return true;
  } catch {
    return false;
  }
}
const pgReachable = await reachable();

export interface PgServer {
  /** The server's origin, http://127.0.0.1:port. */
  base: string;
  /** A connection to the server's database, for putting rows into a state. */
  db: pg.Client;
  /** Signs in through the real request-otp / verify-otp flow against this server. */
  signIn(request: APIRequestContext, email: string): Promise<LoginResponse>;
}

/**
 * Declares the spec serial, skipped without PostgreSQL (a failure on CI, which always has it), and
 * starts the server with `env` on a fresh database before its tests and drops it after them.
 * `env(base)` may start what the server's environment names (a Stripe stand-in at the server's
 * webhook URL); `stop` runs after the server stopped.
 */
export function pgServerForSpec(name: string, port: number, env: (base: string) => Promise<Record<string, string>>, stop: () => Promise<void> = async () => {}): PgServer {
  test.describe.configure({ mode: 'serial' });
  test.skip(!pgReachable && !process.env.CI, `needs PostgreSQL at ${PG_BASE} (E2E_PG_URL)`);
  const dbName = `poi_e2e_${name}_${process.pid}_${Date.now().toString(36)}`;
  const base = `http://127.0.0.1:${port}`;
  let server: ServerProcess | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>> | undefined;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  const handle: PgServer = {
    base,
    db: new pg.Client({ connectionString: `${PG_BASE}/${dbName}` }),
    async signIn(request, email) {
      const since = Date.now();
      const res = await request.post(`${base}/console/v1/auth/request-otp`, { data: { email } });
      expect(res.ok(), await res.text()).toBe(true);
      const code = extractCode(await waitForMail(email, since));
      const verify = await request.post(`${base}/console/v1/auth/verify-otp`, { data: { email, code } });
      expect(verify.ok(), await verify.text()).toBe(true);
      return (await verify.json()) as LoginResponse;
    },
  };
  test.beforeAll(async () => {
    await admin(`CREATE DATABASE ${dbName}`);
    smtp = await startSmtpSink();
    server = await startServerProcess(port, smtp.port, { ...(await env(base)), DATABASE_URL: `${PG_BASE}/${dbName}` });
    await handle.db.connect();
  });
  test.afterAll(async () => {
    await handle.db.end().catch(() => undefined);
    await server?.stop();
    await stop();
    await smtp?.close();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  });
  return handle;
}
