import { expect, type APIRequestContext } from '@playwright/test';
import type { LoginResponse } from '@poi/shared/schemas/auth';
import { adminSession, signInByApi, uniqueEmail } from './auth';

/** The console's bearer header for a session token. */
export const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A new data provider: signed in through the real API, then made a provider by the administrator.
 * The change-type must succeed here; a refusal would otherwise surface later as a confusing
 * failure (no dataset, no menu). With a display name, the profile gets it too.
 */
export async function makeProvider(request: APIRequestContext, options: { prefix?: string; displayName?: string } = {}) {
  const email = uniqueEmail(options.prefix ?? 'provider');
  const login: LoginResponse = await signInByApi(request, email);
  const res = await request.post(`/console/v1/admin/users/${login.user.id}/change-type`, { headers: auth(adminSession().token), data: { account_type: 'data_provider', reason: 'テスト' } });
  expect(res.ok(), await res.text()).toBe(true);
  const user = { ...login.user, account_type: 'data_provider' as const };
  if (options.displayName === undefined) return { ...login, user, email };
  const named = await request.patch('/console/v1/user', { headers: auth(login.token), data: { display_name: options.displayName } });
  expect(named.ok(), await named.text()).toBe(true);
  return { ...login, user: { ...user, display_name: options.displayName }, email };
}
