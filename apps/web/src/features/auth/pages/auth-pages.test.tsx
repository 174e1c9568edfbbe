import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoginPage } from './login-page';
import { VerifyOtpPage, onlyDigits } from './verify-otp-page';

vi.mock('../api/auth-api', () => ({
  requestOtp: vi.fn(async () => ({ success: true, message: 'ok', resend_after: 60 })),
  verifyOtp: vi.fn(),
  verifyMagicLink: vi.fn(),
  logout: vi.fn(),
}));

function renderRoutes(path: string) {
  const router = createMemoryRouter(
    [
      { path: '/auth/login', element: <LoginPage /> },
      { path: '/auth/verify-otp', element: <VerifyOtpPage /> },
    ],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

afterEach(() => vi.useRealTimers());

describe('login page', () => {
  it('keeps the send button disabled until the e-mail is valid', async () => {
    renderRoutes('/auth/login');
    const button = screen.getByRole('button', { name: '認証コードを送信' });
    expect(button).toBeDisabled();
    await userEvent.type(screen.getByLabelText('メールアドレス'), 'user@example');
    expect(button).toBeDisabled();
    await userEvent.type(screen.getByLabelText('メールアドレス'), '.com');
    expect(button).toBeEnabled();
  });

  it('validates on blur with the spec texts', async () => {
    renderRoutes('/auth/login');
    const input = screen.getByLabelText('メールアドレス');
    await userEvent.click(input);
    await userEvent.tab();
    expect(await screen.findByText('メールアドレスを入力してください')).toBeInTheDocument();
    await userEvent.type(input, 'nope');
    await userEvent.tab();
    expect(await screen.findByText('有効なメールアドレスを入力してください')).toBeInTheDocument();
  });

  it('goes to the verify page with the e-mail and the redirect after sending', async () => {
    const router = renderRoutes('/auth/login?redirect=%2Fusage');
    await userEvent.type(screen.getByLabelText('メールアドレス'), 'User@Example.com');
    await userEvent.click(screen.getByRole('button', { name: '認証コードを送信' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/auth/verify-otp'));
    const q = new URLSearchParams(router.state.location.search);
    expect(q.get('email')).toBe('user@example.com');
    expect(q.get('redirect')).toBe('/usage');
  });

  // The send button is disabled while the address is invalid, and a form whose
  // only submit button is disabled ignores Enter, so the message never showed.
  it('checks the address on Enter and shows the message, with the cursor kept in the field', async () => {
    const { requestOtp } = await import('../api/auth-api');
    vi.mocked(requestOtp).mockClear();
    const router = renderRoutes('/auth/login');
    const input = screen.getByLabelText('メールアドレス');
    await userEvent.type(input, 'user@example{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('有効なメールアドレスを入力してください');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveFocus();
    expect(screen.getByRole('button', { name: '認証コードを送信' })).toBeDisabled();
    expect(requestOtp).not.toHaveBeenCalled();
    expect(router.state.location.pathname).toBe('/auth/login');

    await userEvent.clear(input);
    await userEvent.type(input, '{Enter}');
    expect(await screen.findByText('メールアドレスを入力してください')).toBeInTheDocument();

    await userEvent.type(input, 'user@example.com');
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.type(input, '{Enter}');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/auth/verify-otp'));
    expect(requestOtp).toHaveBeenCalledWith('user@example.com', '/dashboard');
  });

  it('does not submit on the Enter that confirms an IME conversion', async () => {
    const { requestOtp } = await import('../api/auth-api');
    vi.mocked(requestOtp).mockClear();
    renderRoutes('/auth/login');
    const input = screen.getByLabelText('メールアドレス');
    await userEvent.type(input, 'user@example.com');
    fireEvent.keyDown(input, { key: 'Enter', isComposing: true });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    expect(requestOtp).not.toHaveBeenCalled();
  });
});

describe('verify page', () => {
  it('strips non-digits and keeps at most 6', () => {
    expect(onlyDigits('ab12-34 56789')).toBe('123456');
    renderRoutes('/auth/verify-otp?email=a%40example.com');
    const input = screen.getByLabelText('認証コード');
    fireEvent.change(input, { target: { value: '１2a3456789' } });
    expect(input).toHaveValue('234567');
  });

  it('disables resend for 60 seconds from load', async () => {
    vi.useFakeTimers();
    renderRoutes('/auth/verify-otp?email=a%40example.com');
    const resend = screen.getByRole('button', { name: /再送信/ });
    expect(resend).toBeDisabled();
    expect(resend).toHaveTextContent('60秒後');
    for (let i = 0; i < 60; i++) {
      await act(async () => {
        vi.advanceTimersByTime(1000);
      });
    }
    expect(screen.getByRole('button', { name: 'コードを再送信' })).toBeEnabled();
  });

  it('shows the code errors of the spec', async () => {
    renderRoutes('/auth/verify-otp?email=a%40example.com');
    await userEvent.click(screen.getByRole('button', { name: 'ログイン' }));
    expect(await screen.findByText('認証コードを入力してください')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('認証コード'), '123');
    await userEvent.click(screen.getByRole('button', { name: 'ログイン' }));
    expect(await screen.findByText('6桁の認証コードを入力してください')).toBeInTheDocument();
    expect(screen.getByLabelText('認証コード')).toHaveValue('');
    expect(screen.getByLabelText('認証コード')).toHaveFocus();
  });

  it('returns to login when the e-mail is missing', async () => {
    const router = renderRoutes('/auth/verify-otp');
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/auth/login'));
  });
});
