import type { APIRequestContext, Page } from '@playwright/test';
import { STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import fs from 'node:fs';
import { ADMIN_SESSION_FILE } from './env';
import { extractCode, waitForMail } from './mailbox';

let counter = 0;
/** A fresh address per call, so tests never share a user or a rate-limit window. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${counter}@e2e.poi-cloud.test`;
}

/** Signs in through the real API (request a code, read the mail, verify) and returns the session. */
export async function signInByApi(request: APIRequestContext, email: string): Promise<LoginResponse> {
  const since = Date.now();
  const res = await request.post('/console/v1/auth/request-otp', { data: { email } });
  if (!res.ok()) throw new Error(`request-otp ${res.status()}: ${await res.text()}`);
  const code = extractCode(await waitForMail(email, since));
  const verify = await request.post('/console/v1/auth/verify-otp', { data: { email, code } });
  if (!verify.ok()) throw new Error(`verify-otp ${verify.status()}: ${await verify.text()}`);
  return (await verify.json()) as LoginResponse;
}

/** Puts a session into the page's local storage before any script of the console runs. */
export async function useSession(page: Page, login: LoginResponse): Promise<void> {
  await page.addInitScript(
    ([tokenKey, userKey, token, user]) => {
      if (!window.sessionStorage.getItem('e2e-session-set')) {
        window.localStorage.setItem(tokenKey, token);
        window.localStorage.setItem(userKey, user);
        window.sessionStorage.setItem('e2e-session-set', '1');
      }
    },
    [STORAGE_TOKEN_KEY, STORAGE_USER_KEY, login.token, JSON.stringify(login.user)] as const,
  );
}

/** The administrator (ADMIN_EMAILS), signed in once for the whole run by the global setup. */
export function adminSession(): LoginResponse {
  return JSON.parse(fs.readFileSync(ADMIN_SESSION_FILE, 'utf8')) as LoginResponse;
}
