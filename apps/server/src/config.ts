import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: optionalString.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional()),
  SMTP_URL: optionalString.pipe(z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional()),
  MAIL_FROM: z.string().trim().min(3).default('POI Cloud <no-reply@poi-cloud.local>'),
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  ADMIN_EMAILS: z.string().default(''),
  APP_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional()),
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AUTH_IP_LIMIT: z.coerce.number().int().min(1).default(30),
  WEB_DIST_DIR: optionalString,
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_BASE: optionalString.pipe(
    z
      .url()
      .refine((v) => v.startsWith('https:') || isLoopbackHttp(v), 'must be https:, or http: on a loopback host (tests)')
      .optional(),
  ),
  ISSUER_NAME: optionalString,
  ISSUER_REPRESENTATIVE: optionalString,
  ISSUER_ADDRESS: optionalString,
  ISSUER_PHONE: optionalString,
  ISSUER_PHONE_HOURS: optionalString,
  ISSUER_EMAIL: optionalString.pipe(z.email().optional()),
  ISSUER_REGISTRATION_NUMBER: optionalString.pipe(z.string().regex(/^T[1-9]\d{12}$/, 'must be T followed by 13 digits').optional()),
  BANK_NAME: optionalString,
  BANK_BRANCH: optionalString,
  BANK_ACCOUNT_TYPE: optionalString,
  BANK_ACCOUNT_NUMBER: optionalString.pipe(z.string().regex(/^\d{7}$/, 'must be 7 digits').optional()),
  BANK_ACCOUNT_HOLDER: optionalString,
  BILLING_JOBS: z.enum(['on', 'off']).default('on'),
  USAGE_RAW_RETENTION_MONTHS: z.coerce.number().int().min(2).max(1200).default(13),
  SEARCH_INDEX_MAX_MB: z.coerce.number().int().min(0).max(1_048_576).default(1024),
  SEARCH_INDEX_SNAPSHOT_DIR: optionalString,
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(25_000),
  TRUST_PROXY: optionalString.pipe(
    z
      .string()
      .refine(
        (v) => /^\d{1,2}$/.test(v) || v.split(',').every((item) => isProxyAddress(item.trim())),
        'must be a hop count (e.g. 1) or comma-separated IP addresses / CIDRs of the proxies (e.g. 10.0.0.0/8,192.168.1.10)',
      )
      .optional(),
  ),
});

function isLoopbackHttp(v: string): boolean {
  const u = new URL(v);
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

/** An address or CIDR block of a trusted proxy, or one of proxy-addr's names for reserved ranges. */
function isProxyAddress(item: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) return true;
  const [address = '', prefix, ...rest] = item.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  smtpUrl?: string;
  /** The bound of one mail send as a whole (connect, greeting, every command); plugins/mail.ts. */
  smtpTimeoutMs: number;
  mailFrom: string;
  adminEmails: Set<string>;
  appSecret: string;
  redisUrl?: string;
  /** The bearer token /metrics requires; unset, /metrics answers loopback clients only. */
  metricsToken?: string;
  logLevel: string;
  /** Sign-in requests and verifications allowed per IP address per 10 minutes. */
  authIpLimit: number;
  /** Directory of the built console; served with history-mode fallback when it exists. */
  webDistDir: string;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify's `trustProxy`):
   * a hop count or a list of addresses/CIDRs; false (the default) uses the socket's address.
   */
  trustProxy: false | number | string[];
  /** Card payments (docs/billing.md "Card payments"): off when secretKey is unset. */
  stripe: { secretKey?: string; webhookSecret?: string; apiBase?: string };
  /** The seller on invoices and /commerce; registrationNumber makes invoices 適格請求書. */
  issuer: {
    name?: string;
    representative?: string;
    address?: string;
    phone?: string;
    phoneHours?: string;
    email?: string;
    registrationNumber?: string;
  };
  /** Where bank transfers go; all set or transfers cannot be offered. */
  bank?: { name: string; branch: string; accountType: string; accountNumber: string; holder: string };
  /** The required BANK_* variables left unset (named by the start-up warning and the admin dashboard). */
  bankUnset?: string[];
  /** The monthly close and card retry jobs run in this process ('off' in tests that drive them). */
  billingJobs: boolean;
  /**
   * Months of raw usage events kept before the current one (docs/billing.md "Usage data"); older
   * closed months are dropped by the usage-partitions job. The rollups are kept for good.
   */
  usageRawRetentionMonths: number;
  /** Memory the in-memory search index may take; 0 turns it off (PostgreSQL answers every search). */
  searchIndexMaxMb: number;
  /** Where this instance saves its search index's snapshots (default DATA_DIR/index-snapshots); undefined when SEARCH_INDEX_SNAPSHOT_DIR is off. */
  searchIndexSnapshotDir?: string;
  /**
   * SIGTERM's bound: in-flight requests finish, the usage meter is flushed and the connections
   * closed within it, or the process exits 1 (server.ts; keep it under the orchestrator's grace period).
   */
  shutdownTimeoutMs: number;
}

export class ConfigError extends Error {}

/** Reads and validates the environment once, listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  if (e.NODE_ENV === 'production' && !e.APP_SECRET) {
    throw new ConfigError('Invalid configuration:\n  APP_SECRET: required in production');
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    smtpUrl: e.SMTP_URL,
    smtpTimeoutMs: e.SMTP_TIMEOUT_MS,
    mailFrom: e.MAIL_FROM,
    adminEmails: new Set(
      e.ADMIN_EMAILS.split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    ),
    appSecret: e.APP_SECRET ?? readOrCreateSecret(dataDir),
    redisUrl: e.REDIS_URL,
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    authIpLimit: e.AUTH_IP_LIMIT,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? defaultWebDist()),
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    stripe: { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET, apiBase: e.STRIPE_API_BASE },
    issuer: {
      name: e.ISSUER_NAME,
      representative: e.ISSUER_REPRESENTATIVE,
      address: e.ISSUER_ADDRESS,
      phone: e.ISSUER_PHONE,
      phoneHours: e.ISSUER_PHONE_HOURS,
      email: e.ISSUER_EMAIL,
      registrationNumber: e.ISSUER_REGISTRATION_NUMBER,
    },
    bank:
      e.BANK_NAME && e.BANK_BRANCH && e.BANK_ACCOUNT_NUMBER && e.BANK_ACCOUNT_HOLDER
        ? { name: e.BANK_NAME, branch: e.BANK_BRANCH, accountType: e.BANK_ACCOUNT_TYPE ?? '普通', accountNumber: e.BANK_ACCOUNT_NUMBER, holder: e.BANK_ACCOUNT_HOLDER }
        : undefined,
    bankUnset: (['BANK_NAME', 'BANK_BRANCH', 'BANK_ACCOUNT_NUMBER', 'BANK_ACCOUNT_HOLDER'] as const).filter((name) => !e[name]),
    billingJobs: e.BILLING_JOBS === 'on',
    usageRawRetentionMonths: e.USAGE_RAW_RETENTION_MONTHS,
    searchIndexMaxMb: e.SEARCH_INDEX_MAX_MB,
    searchIndexSnapshotDir: e.SEARCH_INDEX_SNAPSHOT_DIR === 'off' ? undefined : path.resolve(e.SEARCH_INDEX_SNAPSHOT_DIR ?? path.join(dataDir, 'index-snapshots')),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}

function parseTrustProxy(value: string | undefined): false | number | string[] {
  if (!value) return false;
  if (/^\d+$/.test(value)) return Number(value) || false;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Outside production a secret is generated once and kept beside the data, so codes survive restarts. */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function defaultWebDist(): string {
  // Works from src/ (tsx) and from the bundled dist/server.js alike.
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../web/dist');
}
