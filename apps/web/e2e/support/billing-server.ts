import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { startFakeStripe, type FakeStripe } from '../../../server/test/support/fake-stripe';
import { E2E_PORT } from './env';
import { extractCode, waitForMail } from './mailbox';
import { startServerProcess, type ServerProcess } from './server-process';
import { startSmtpSink } from './smtp-sink';

const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
/** libfaketime (Debian package faketime; CI installs it): the billing flow moves its server's clock. */
export const hasFaketime = fs.existsSync(FAKETIME_LIB);

export const BILLING_ADMIN_EMAIL = 'billing-admin@e2e.poi-cloud.test';

export const ISSUER_ENV = {
  ISSUER_NAME: 'POI Cloud株式会社',
  ISSUER_REPRESENTATIVE: '代表取締役 山田太郎',
  ISSUER_ADDRESS: '東京都千代田区丸の内1-1-1',
  ISSUER_PHONE: '03-1234-5678',
  ISSUER_PHONE_HOURS: '平日10時〜17時',
  ISSUER_EMAIL: 'billing@poi-cloud.example',
  ISSUER_REGISTRATION_NUMBER: 'T1234567890123',
  BANK_NAME: 'みずほ銀行',
  BANK_BRANCH: '丸の内支店',
  BANK_ACCOUNT_TYPE: '普通',
  BANK_ACCOUNT_NUMBER: '7654321',
  BANK_ACCOUNT_HOLDER: 'ポイクラウド(カ',
};

export interface BillingServer {
  baseUrl: string;
  stripe: FakeStripe;
  /** Moves the server's wall clock by whole days from now; resolves once the server shows it. */
  setClockOffsetDays(days: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A server of its own for the billing flow (its clock moves, which would disturb the other
 * specs' sessions): the fake Stripe sending its own webhooks, the legal-notice and bank
 * configuration, mail to the shared mailbox directory, and libfaketime reading a file the spec
 * rewrites to move the clock.
 */
export async function startBillingServer(portOffset = 7): Promise<BillingServer> {
  const port = E2E_PORT + portOffset;
  const baseUrl = `http://127.0.0.1:${port}`;
  const clockFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'poi-e2e-clock-')), 'faketime');
  fs.writeFileSync(clockFile, '+0d\n');
  const smtp = await startSmtpSink();
  const stripe = await startFakeStripe({ webhookUrl: `${baseUrl}/webhooks/stripe`, autoWebhooks: true });
  let server: ServerProcess;
  try {
    server = await startServerProcess(port, smtp.port, {
      ...stripe.env(),
      ...ISSUER_ENV,
      ADMIN_EMAILS: BILLING_ADMIN_EMAIL,
      BILLING_JOBS: 'off',
      LD_PRELOAD: FAKETIME_LIB,
      FAKETIME_TIMESTAMP_FILE: clockFile,
      FAKETIME_CACHE_DURATION: '1',
      // Timers keep running on the real monotonic clock; only the wall clock moves.
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
  } catch (err) {
    await stripe.stop();
    await smtp.close();
    throw err;
  }
  return {
    baseUrl,
    stripe,
    async setClockOffsetDays(days) {
      fs.writeFileSync(clockFile, `+${days}d\n`);
      // libfaketime re-reads the file at most once a second, and only when the process asks for
      // the time: wait until the server's own clock (its Date header) shows the move, so that
      // what follows (a sign-in's resend wait, a close) runs on the new day.
      const expected = Date.now() + (days - 1) * 86_400_000;
      for (const started = Date.now(); Date.now() - started < 15_000; await new Promise((r) => setTimeout(r, 200))) {
        const res = await fetch(`${baseUrl}/healthz`);
        if (Date.parse(res.headers.get('date') ?? '') > expected) return;
      }
      throw new Error(`the billing server's clock did not move by ${days} days`);
    },
    async stop() {
      await server.stop();
      await stripe.stop();
      await smtp.close();
      fs.rmSync(path.dirname(clockFile), { recursive: true, force: true });
    },
  };
}

/** Signs in through the real request-otp / verify-otp flow against a billing server. */
export async function signInAt(server: BillingServer, request: APIRequestContext, email: string): Promise<LoginResponse> {
  let since = Date.now();
  let res = await request.post(`${server.baseUrl}/console/v1/auth/request-otp`, { data: { email } });
  // Right after the clock moves, libfaketime may not have read the new offset yet (it re-reads
  // its file at most once a second, later on a loaded machine): wait out the resend window.
  for (let i = 0; i < 3 && res.status() === 429; i++) {
    await new Promise((r) => setTimeout(r, (Number(res.headers()['retry-after'] ?? 5) + 1) * 1000));
    since = Date.now();
    res = await request.post(`${server.baseUrl}/console/v1/auth/request-otp`, { data: { email } });
  }
  expect(res.ok(), await res.text()).toBe(true);
  const code = extractCode(await waitForMail(email, since));
  const verify = await request.post(`${server.baseUrl}/console/v1/auth/verify-otp`, { data: { email, code } });
  expect(verify.ok(), await verify.text()).toBe(true);
  return (await verify.json()) as LoginResponse;
}

/** The browser holds this session for the billing server's origin (its local storage). */
export async function storeSessionAt(page: Page, server: BillingServer, login: LoginResponse): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await page.evaluate(
    ([tokenKey, userKey, token, u]) => {
      window.localStorage.setItem(tokenKey, token);
      window.localStorage.setItem(userKey, u);
    },
    [STORAGE_TOKEN_KEY, STORAGE_USER_KEY, login.token, JSON.stringify(login.user)] as const,
  );
}
