import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { User } from '@poi/shared/schemas/users';
import { authStore } from '../lib/auth-store';
import { AppProvider } from './provider';
import { routes } from './router';

const user: User = { id: 'u1', email: 'user@example.com', display_name: null, role: 'user', account_type: 'trial' };

vi.mock('../features/auth/api/auth-api', () => ({
  requestOtp: vi.fn(),
  verifyOtp: vi.fn(async () => ({ token: 'new-token', user, message: 'ok' })),
  verifyMagicLink: vi.fn(),
  logout: vi.fn(),
}));

function renderAt(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return router;
}

const where = (router: ReturnType<typeof renderAt>) => `${router.state.location.pathname}${router.state.location.search}`;
const MAGIC_TOKEN = 'a'.repeat(64);

afterEach(() => act(() => authStore.clear()));

// The guard once followed `redirect` for users who were already signed in.
describe('guest routes opened by a signed-in user (they go to /dashboard)', () => {
  it.each([
    '/auth/login?redirect=%2Fusage',
    '/auth/verify-otp?email=user%40example.com&redirect=%2Fusage',
    '/auth/verify-otp?email=user%40example.com&redirect=%2Fapi-keys%3Fx%3D1',
  ])('%s goes to /dashboard', async (path) => {
    authStore.signIn('t', user);
    const router = renderAt(path);
    await waitFor(() => expect(where(router)).toBe('/dashboard'));
  });

  it('the magic link page says 既にログインしています and goes to /dashboard, not to its redirect', async () => {
    const { verifyMagicLink } = await import('../features/auth/api/auth-api');
    authStore.signIn('t', user);
    const router = renderAt(`/auth/magic/${MAGIC_TOKEN}?redirect=%2Fusage`);
    await waitFor(() => expect(where(router)).toBe('/dashboard'));
    expect(await screen.findByText('既にログインしています')).toBeInTheDocument();
    expect(verifyMagicLink).not.toHaveBeenCalled();
  });
});

describe('a sign-in that completes on the verify page', () => {
  it('goes on to the redirect target', async () => {
    const router = renderAt('/auth/verify-otp?email=user%40example.com&redirect=%2Fusage');
    await userEvent.type(await screen.findByLabelText('認証コード'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'ログイン' }));
    await waitFor(() => expect(where(router)).toBe('/usage'));
    expect(authStore.getState().token).toBe('new-token');
  });
});

// Once, a mail scanner running the page's JavaScript signed in and spent the user's link and code.
describe('the magic link page (a person confirms; loading spends nothing)', () => {
  it('loads without calling the server, and signs in only on 「ログインする」', async () => {
    const { verifyMagicLink } = await import('../features/auth/api/auth-api');
    vi.mocked(verifyMagicLink).mockReset();
    vi.mocked(verifyMagicLink).mockResolvedValue({ success: true, token: 'magic-token', user, message: 'ログインしました' });
    const router = renderAt(`/auth/magic/${MAGIC_TOKEN}?redirect=%2Fusage`);
    const button = await screen.findByRole('button', { name: 'ログインする' });
    expect(screen.getByRole('heading', { level: 1, name: 'マジックリンク認証' })).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 50));
    expect(verifyMagicLink).not.toHaveBeenCalled();
    expect(where(router)).toBe(`/auth/magic/${MAGIC_TOKEN}?redirect=%2Fusage`);

    button.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(where(router)).toBe('/usage'));
    expect(verifyMagicLink).toHaveBeenCalledTimes(1);
    expect(verifyMagicLink).toHaveBeenCalledWith(MAGIC_TOKEN);
  });
});
