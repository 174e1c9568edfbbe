import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, InjectOptions } from 'fastify';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase, type Database } from '../src/db/client';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A real SMTP listener: the server sends its mail here exactly as it would to a real relay. */
export async function startMailbox() {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          for (const rcpt of session.envelope.rcptTo) {
            received.push({ to: rcpt.address.toLowerCase(), subject: mail.subject ?? '', text: mail.text ?? '', html: String(mail.html ?? '') });
          }
          waiters.splice(0).forEach((w) => w());
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The newest mail to the address, waiting for it to arrive. */
    async latest(to: string, timeoutMs = 5000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.filter((m) => m.to === to.toLowerCase()).at(-1);
        if (mail) return mail;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    count: (to: string) => received.filter((m) => m.to === to.toLowerCase()).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Mailbox = Awaited<ReturnType<typeof startMailbox>>;

export const codeOf = (mail: ReceivedMail): string => /認証コード: (\d{6})/.exec(mail.text)![1]!;
export const magicTokenOf = (mail: ReceivedMail): string => /\/auth\/magic\/([a-z0-9]{64})/.exec(mail.text)![1]!;

/**
 * Where a throwaway database lives: a fresh PostgreSQL database when TEST_DATABASE_URL is set
 * (created with a UTF-8 ctype and dropped afterwards), otherwise PGlite (in memory, or in a
 * directory when another process must open it too).
 */
export interface ScratchDatabase {
  /** The server's environment for this database (DATABASE_URL, or DATA_DIR holding pglite/). */
  env: Record<string, string>;
  open(): Promise<Database>;
  drop(): Promise<void>;
}

/**
 * A database of its own for a test: on PGlite in memory (or `onDisk` in a DATA_DIR), on PostgreSQL
 * (TEST_DATABASE_URL) a new database. Empty until its first open migrates it, unless `migrated`:
 * then a copy of the migrated one the global setup made (support/pglite-dump.ts).
 */
export async function createScratchDatabase(options: { onDisk?: boolean; migrated?: boolean } = {}): Promise<ScratchDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dataDir = options.onDisk ? mkdtempSync(path.join(tmpdir(), 'poi-data-')) : undefined;
    return {
      env: dataDir ? { DATA_DIR: dataDir } : {},
      open: () => openDatabase(dataDir ? { pgliteDir: path.join(dataDir, 'pglite') } : { pgliteDump: migratedDump() }),
      drop: async () => {},
    };
  }
  const name = `poi_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const template = options.migrated ? inject('pgTemplate') : '';
  await admin.query(
    template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`,
  );
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    open: () => openDatabase({ url: url.toString() }),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

let dump: Blob | undefined;
/** The migrated database the global setup dumped (support/pglite-dump.ts), read once per test file. */
function migratedDump(): Blob | undefined {
  const file = inject('pgliteDump');
  if (!file) return undefined;
  dump ??= new Blob([readFileSync(file)]);
  return dump;
}

async function openTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  const scratch = await createScratchDatabase({ migrated: true });
  return { database: await scratch.open(), drop: scratch.drop };
}

/** A signed-in console user as the route tests use one. */
export interface Actor {
  token: string;
  id: string;
  email: string;
}

/** Who calls: a signed-in actor (anything with a token), a bare token, or nobody. */
export type Caller = { token: string } | string | undefined;

export type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * One console API call on `app`: the path under /console/v1, the caller's bearer token, and the
 * body as given (objects as JSON; a string is sent as it is, as JSON).
 */
export function consoleApi(app: FastifyInstance, method: ApiMethod, url: string, who?: Caller, body?: unknown) {
  const token = typeof who === 'string' ? who : who?.token;
  return app.inject({
    method,
    url: `/console/v1${url}`,
    headers: { ...(token ? bearer(token) : {}), ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}) },
    ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
  });
}

export interface TestContext {
  app: FastifyInstance;
  mailbox: Mailbox;
  database: Database;
  /** Raw SQL against the test database, for ageing rows and checking what is stored. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** A console API call on this context's app (consoleApi). */
  api(method: ApiMethod, url: string, who?: Caller, body?: unknown): ReturnType<typeof consoleApi>;
  /**
   * The administrator (ADMIN_EMAILS), signed in once per context; `{ again: true }` signs in anew
   * and keeps that session, for a test that ended the administrator's sessions (a suspension).
   */
  admin(options?: { again?: boolean }): Promise<Actor>;
  /**
   * A new user signed in through the real flow; any type but trial is set by the admin's
   * change-type (with `reason`, which lands in the audit log), which must answer 200.
   */
  newUser(accountType?: string, prefix?: string, reason?: string): Promise<Actor>;
  /** A new data provider. */
  newProvider(prefix?: string): Promise<Actor>;
  /** A public dataset created by its owner (a provider); answers its id. Free and with a unique name unless given. */
  newDataset(owner: Caller, options?: { price?: number; name?: string }): Promise<string>;
  close(): Promise<void>;
}

/** What signing in needs: an app and the mailbox its sign-in mails go to. */
export type SignInTarget = Pick<TestContext, 'app' | 'mailbox'>;

/** The test-support calls of a context, bound to its own app and mailbox (closures, so they can be destructured). */
export function contextCalls(ctx: SignInTarget): Pick<TestContext, 'api' | 'admin' | 'newUser' | 'newProvider' | 'newDataset'> {
  const api: TestContext['api'] = (method, url, who, body) => consoleApi(ctx.app, method, url, who, body);
  let admin: Promise<Actor> | undefined;
  const signedInAdmin = (options: { again?: boolean } = {}): Promise<Actor> => {
    if (options.again) admin = undefined;
    return (admin ??= signIn(ctx, ADMIN_EMAIL).then((s) => ({ token: s.token, id: s.user.id, email: ADMIN_EMAIL })));
  };
  const newUser: TestContext['newUser'] = async (accountType = 'trial', prefix = accountType, reason = 'テスト') => {
    const email = uniqueEmail(prefix);
    const s = await signIn(ctx, email);
    if (accountType !== 'trial') {
      const res = await api('POST', `/admin/users/${s.user.id}/change-type`, await signedInAdmin(), { account_type: accountType, reason });
      expect(res.statusCode, res.body).toBe(200);
    }
    return { token: s.token, id: s.user.id, email };
  };
  let datasets = 0;
  return {
    api,
    admin: signedInAdmin,
    newUser,
    newProvider: (prefix = 'provider') => newUser('data_provider', prefix),
    async newDataset(owner, options = {}) {
      const name = options.name ?? `データセット ${process.pid}-${++datasets}-${Math.random().toString(36).slice(2, 8)}`;
      const res = await api('POST', '/datasets/public/create', owner, { name, price_per_search: options.price ?? 0 });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.dataset_id as string;
    },
  };
}

/** The administrator's address in every test context (ADMIN_EMAILS). */
export const ADMIN_EMAIL = 'admin@example.com';

export async function createTestContext(env: Record<string, string> = {}, options: { logStream?: DestinationStream } = {}): Promise<TestContext> {
  const mailbox = await startMailbox();
  const { database, drop } = await openTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    APP_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
    SMTP_URL: mailbox.url,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'poi-test-')),
    WEB_DIST_DIR: path.join(tmpdir(), 'poi-no-console'),
    PUBLIC_URL: 'http://console.test',
    AUTH_IP_LIMIT: '1000',
    ADMIN_EMAILS: 'admin@example.com',
    // Tests that need the billing jobs drive them (or turn them on); the rest skip a start-up close.
    BILLING_JOBS: 'off',
    ...env,
  });
  const app = await buildApp(config, { database, logStream: options.logStream });
  await app.ready();
  return {
    app,
    mailbox,
    database,
    ...contextCalls({ app, mailbox }),
    async query<T>(text: string, params: unknown[] = []) {
      const client = (database.db as unknown as { $client: { query: (t: string, p: unknown[]) => Promise<{ rows: T[] }> } }).$client;
      return (await client.query(text, params)).rows;
    },
    async close() {
      await app.close();
      await database.close();
      await drop();
      await mailbox.close();
    },
  };
}

/** Opens a test context before the file's tests (then runs `ready` on it) and closes it after them. */
export function withTestContext(env: Record<string, string>, ready: (ctx: TestContext) => Promise<void> | void): void {
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(env);
    await ready(ctx);
  });
  afterAll(async () => {
    await ctx?.close();
  });
}

/** Opens a scratch database before the file's tests (handing it to `ready`) and closes and drops it after them. */
export function withScratchDatabase(ready: (database: Database) => void): void {
  let scratch: ScratchDatabase | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    database = await scratch.open();
    ready(database);
  });
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });
}

/** Another server instance on an open database (a restart, or a second instance on the same PostgreSQL). */
export async function buildAppOn(database: Database, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      APP_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'poi-test-')),
      WEB_DIST_DIR: path.join(tmpdir(), 'poi-no-console'),
      BILLING_JOBS: 'off',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      ...env,
    }),
    { database },
  );
  await app.ready();
  return app;
}

let seq = 0;
export const uniqueEmail = (prefix = 'user') => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}@example.com`;

export async function requestCode(ctx: SignInTarget, email: string, extra: Record<string, unknown> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/console/v1/auth/request-otp', payload: { email, ...extra } });
}

export async function verifyCode(ctx: SignInTarget, email: string, code: string) {
  return ctx.app.inject({ method: 'POST', url: '/console/v1/auth/verify-otp', payload: { email, code } });
}

/** Signs in through the real flow (request, mail, verify) and answers the bearer token and user. */
export async function signIn(ctx: SignInTarget, email: string): Promise<{ token: string; user: { id: string; role: string; account_type: string } }> {
  const before = ctx.mailbox.count(email);
  const res = await requestCode(ctx, email);
  if (res.statusCode !== 200) throw new Error(`request-otp ${res.statusCode} ${res.body}`);
  while (ctx.mailbox.count(email) === before) await new Promise((r) => setTimeout(r, 20));
  const verify = await verifyCode(ctx, email, codeOf(await ctx.mailbox.latest(email)));
  if (verify.statusCode !== 200) throw new Error(`verify-otp ${verify.statusCode} ${verify.body}`);
  return verify.json();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A logger that drops everything, for units built outside an app (meters, limiters). */
/** A pino destination that keeps every line (tests read what the server logged). */
export function captureLog() {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } satisfies DestinationStream,
    /** Every line with this message (`msg`). */
    find: (msg: string | RegExp) => lines.filter((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(String(l.msg)))),
  };
}

export const silentLog = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => silentLog, level: 'silent' } as unknown as FastifyBaseLogger;

/** A TCP port free on 127.0.0.1 a moment ago (for a server started in another process). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
