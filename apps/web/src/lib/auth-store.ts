import { useSyncExternalStore } from 'react';
import { STORAGE_TOKEN_KEY, STORAGE_USER_KEY } from '@poi/shared/limits';
import type { User } from '@poi/shared/schemas/users';

export interface AuthState {
  token: string | null;
  user: User | null;
  /** True once the start-up rules have run; the router waits for it. */
  initialised: boolean;
}

let state: AuthState = { token: null, user: null, initialised: false };
const listeners = new Set<() => void>();

function setState(next: Partial<AuthState>): void {
  state = { ...state, ...next };
  listeners.forEach((l) => l());
}

export const authStore = {
  getState: (): AuthState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** After a successful verification: token and user are stored (in local storage). */
  signIn(token: string, user: User): void {
    window.localStorage.setItem(STORAGE_TOKEN_KEY, token);
    window.localStorage.setItem(STORAGE_USER_KEY, JSON.stringify(user));
    setState({ token, user });
  },
  setUser(user: User): void {
    const json = JSON.stringify(user);
    window.localStorage.setItem(STORAGE_USER_KEY, json);
    // The start-up refresh usually finds the user unchanged: no re-render of every screen then.
    if (json !== JSON.stringify(state.user)) setState({ user });
  },
  /** Logout, any 401, a failed verification: token and user go. */
  clear(): void {
    window.localStorage.removeItem(STORAGE_TOKEN_KEY);
    window.localStorage.removeItem(STORAGE_USER_KEY);
    setState({ token: null, user: null });
  },
};

export const isAuthenticated = (s: AuthState): boolean => !!s.token && !!s.user;

/**
 * What the start-up rules need from the server side, passed in by the app: the auth store stays
 * free of the HTTP client (which imports this store for its 401 rule), and the app loads these
 * only for a stored session, so a guest's first page (the sign-in page) does not wait for them.
 */
export interface SessionApi {
  /** The stored user if it still matches the shared schema, else null. */
  parseUser(value: unknown): User | null;
  /** The current user from the server; rejects on any error (a 401 already cleared the session). */
  fetchCurrentUser(): Promise<User>;
}

function readStoredUser(session: SessionApi): User | null {
  const raw = window.localStorage.getItem(STORAGE_USER_KEY);
  if (!raw) return null;
  try {
    return session.parseUser(JSON.parse(raw));
  } catch {
    return null;
  }
}

async function refreshUser(session: SessionApi): Promise<void> {
  try {
    const user = await session.fetchCurrentUser();
    if (state.token) authStore.setUser(user);
  } catch {
    // 401 was already handled by the client (session cleared). 429, network errors, timeouts
    // and other API errors keep the session.
  }
}

/**
 * The console specification's start-up rules, run before the first navigation. A stored token with stored
 * user data: the user data is used (and removed from storage), and the user is refreshed in the
 * background, which also finds out whether the server still knows the session. A token without
 * user data: the user is fetched before the first navigation.
 */
export async function initAuth(loadSession: () => Promise<SessionApi>): Promise<void> {
  const token = window.localStorage.getItem(STORAGE_TOKEN_KEY);
  if (!token) {
    window.localStorage.removeItem(STORAGE_USER_KEY);
    setState({ token: null, user: null, initialised: true });
    return;
  }
  const session = await loadSession();
  const stored = readStoredUser(session);
  window.localStorage.removeItem(STORAGE_USER_KEY);
  if (stored) {
    setState({ token, user: stored, initialised: true });
    void refreshUser(session);
    return;
  }
  setState({ token, user: null });
  await refreshUser(session);
  setState({ initialised: true });
}

export function useAuth(): AuthState {
  return useSyncExternalStore(authStore.subscribe, authStore.getState, authStore.getState);
}
