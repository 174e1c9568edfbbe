import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { userResponseSchema, userSchema } from '@poi/shared/schemas/users';
import type { SessionApi } from './auth-store';

const user = { id: 'u1', email: 'a@example.com', display_name: '山田', role: 'user', account_type: 'trial' };

const get = vi.fn();
// The server side the app passes in (app/session.ts), over a stubbed HTTP GET.
const session: SessionApi = {
  parseUser: (value) => {
    const parsed = userSchema.safeParse(value);
    return parsed.success ? parsed.data : null;
  },
  fetchCurrentUser: async () => userResponseSchema.parse((await get('/console/v1/user')).data).user,
};
const loadSession = async () => session;

async function freshStore() {
  vi.resetModules();
  return import('./auth-store');
}

beforeEach(() => {
  get.mockReset();
});
afterEach(() => {
  window.localStorage.clear();
});

describe('start-up rules', () => {
  it('without a token: signed out, nothing fetched', async () => {
    const { initAuth, authStore } = await freshStore();
    await initAuth(loadSession);
    expect(authStore.getState()).toMatchObject({ token: null, user: null, initialised: true });
    expect(get).not.toHaveBeenCalled();
  });

  it('with a token and a stored user: the user is used at once and removed from storage', async () => {
    window.localStorage.setItem('auth_token', 't');
    window.localStorage.setItem('user', JSON.stringify(user));
    get.mockReturnValue(new Promise(() => {}));
    const { initAuth, authStore, isAuthenticated } = await freshStore();
    await initAuth(loadSession);
    expect(isAuthenticated(authStore.getState())).toBe(true);
    expect(authStore.getState().user?.email).toBe('a@example.com');
    expect(window.localStorage.getItem('user')).toBeNull();
  });

  it('with a token only: fetches the user before the first navigation', async () => {
    window.localStorage.setItem('auth_token', 't');
    get.mockResolvedValue({ data: { success: true, user } });
    const { initAuth, authStore, isAuthenticated } = await freshStore();
    await initAuth(loadSession);
    expect(get).toHaveBeenCalledWith('/console/v1/user');
    expect(isAuthenticated(authStore.getState())).toBe(true);
  });

  it.each([
    ['429', { response: { status: 429 } }],
    ['a network error', { code: 'ERR_NETWORK' }],
    ['a timeout', { code: 'ECONNABORTED' }],
    ['a 500', { response: { status: 500 } }],
  ])('keeps the session on %s', async (_name, error) => {
    window.localStorage.setItem('auth_token', 't');
    get.mockRejectedValue(error);
    const { initAuth, authStore } = await freshStore();
    await initAuth(loadSession);
    expect(authStore.getState().token).toBe('t');
    expect(window.localStorage.getItem('auth_token')).toBe('t');
  });

  it('signIn stores token and user; clear removes both', async () => {
    const { authStore } = await freshStore();
    authStore.signIn('tok', user as never);
    expect(window.localStorage.getItem('auth_token')).toBe('tok');
    expect(JSON.parse(window.localStorage.getItem('user')!)).toEqual(user);
    authStore.clear();
    expect(window.localStorage.getItem('auth_token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
  });
});
