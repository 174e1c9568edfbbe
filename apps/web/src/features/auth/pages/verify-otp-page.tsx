import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { OTP_LENGTH, OTP_RESEND_WAIT_SECONDS } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { emailSchema, otpCodeSchema, safeRedirect } from '@poi/shared/schemas/auth';
import { Spinner } from '../../../components/ui/spinner';
import { authStore } from '../../../lib/auth-store';
import { getErrorMessage, retryAfterSeconds } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { requestOtp, verifyOtp } from '../api/auth-api';
import { AuthLayout } from '../components/auth-layout';

export const onlyDigits = (value: string): string => value.replace(/\D/g, '').slice(0, OTP_LENGTH);

export function VerifyOtpPage() {
  usePageTitle('認証コード入力');
  const [params] = useSearchParams();
  const emailParam = params.get('email');
  const email = emailParam ? emailSchema.safeParse(emailParam) : null;
  if (!email?.success) return <MissingEmail />;
  return <VerifyOtpForm email={email.data} redirect={safeRedirect(params.get('redirect'))} />;
}

function MissingEmail() {
  const navigate = useNavigate();
  useEffect(() => {
    toast.error(messages.emailMissing, { toastId: 'email-missing' });
    navigate('/auth/login', { replace: true });
  }, [navigate]);
  return null;
}

function VerifyOtpForm({ email, redirect }: { email: string; redirect: string }) {
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [resending, setResending] = useState(false);
  const [countdown, setCountdown] = useState(OTP_RESEND_WAIT_SECONDS);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (countdown <= 0) return;
    const timer = window.setTimeout(() => setCountdown((c) => c - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [countdown]);

  const fail = useCallback((message: string) => {
    setError(message);
    setCode('');
    inputRef.current?.focus();
  }, []);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = otpCodeSchema.safeParse(code);
    if (!parsed.success) {
      fail(parsed.error.issues[0]?.message ?? messages.otpLength);
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      const login = await verifyOtp(email, parsed.data);
      authStore.signIn(login.token, login.user);
      // What the sign-in pages said (code sent, wrong code) stays behind with them: only the
      // sign-in itself is announced on the page the user goes on to.
      toast.dismiss();
      toast.clearWaitingQueue();
      toast.success(messages.loggedIn);
      setDone(true);
      navigate(redirect, { replace: true });
    } catch (err) {
      // A failed verification leaves no half session behind.
      authStore.clear();
      const message = getErrorMessage(err, messages.otpVerifyFailed);
      toast.error(message);
      fail(message);
      // The code is used up: let the user ask for a new one at once. The server's own wait
      // still applies; its 429 then shows how long (the countdown below).
      if (message === messages.otpTooManyAttempts) setCountdown(0);
    } finally {
      setSubmitting(false);
    }
  };

  const onResend = async () => {
    setResending(true);
    try {
      await requestOtp(email, redirect);
      toast.success(messages.otpSent);
      setCountdown(OTP_RESEND_WAIT_SECONDS);
    } catch (err) {
      toast.error(getErrorMessage(err, messages.otpResendFailed));
      const wait = retryAfterSeconds(err);
      if (wait) setCountdown(wait);
    } finally {
      setResending(false);
    }
  };

  if (done) return <Navigate to={redirect} replace />;

  return (
    <AuthLayout title="認証コードの入力">
      <p className="mb-5 text-center text-sm text-gray-700">
        <span className="break-all font-medium text-gray-900">{email}</span>
        <br />
        に送信した6桁の認証コードを入力してください。
      </p>
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <label htmlFor="otp" className="block text-sm font-medium text-gray-800">
            認証コード
          </label>
          <input
            id="otp"
            ref={inputRef}
            value={code}
            onChange={(e) => setCode(onlyDigits(e.target.value))}
            inputMode="numeric"
            autoComplete="one-time-code"
            autoFocus
            placeholder="123456"
            aria-invalid={error ? 'true' : 'false'}
            aria-describedby={error ? 'otp-error' : undefined}
            className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-center font-mono text-2xl tracking-[0.5em] focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
          />
          {error ? (
            <p id="otp-error" role="alert" className="mt-1 text-sm text-red-700">
              {error}
            </p>
          ) : null}
        </div>
        <button
          type="submit"
          disabled={submitting}
          className="flex w-full items-center justify-center gap-2 rounded-md bg-blue-700 px-4 py-2.5 font-medium text-white hover:bg-blue-800 focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 disabled:cursor-not-allowed disabled:bg-gray-400 disabled:text-gray-900"
        >
          {submitting ? <Spinner className="h-4 w-4" /> : null}
          {submitting ? '認証中...' : 'ログイン'}
        </button>
      </form>

      <div className="mt-4 text-center">
        <button
          type="button"
          onClick={onResend}
          disabled={countdown > 0 || resending}
          className="min-h-11 text-sm font-medium text-blue-800 underline hover:text-blue-900 disabled:cursor-not-allowed disabled:text-gray-700 disabled:no-underline"
        >
          {countdown > 0 ? `コードを再送信(${countdown}秒後に再送信できます)` : resending ? '再送信中...' : 'コードを再送信'}
        </button>
      </div>

      <div className="mt-6 rounded-md border border-gray-200 bg-gray-50 p-4 text-sm text-gray-800">
        <p className="font-medium">メールが届かない場合</p>
        <ul className="mt-2 list-disc space-y-1 pl-5">
          <li>迷惑メールフォルダをご確認ください</li>
          <li>メールアドレスが正しいかご確認ください</li>
          <li>数分待ってから再送信してください</li>
        </ul>
      </div>

      <p className="mt-6 text-center text-sm">
        <Link to={`/auth/login?${new URLSearchParams({ redirect }).toString()}`} className="inline-flex min-h-6 items-center text-blue-800 underline hover:text-blue-900">
          メールアドレスを変更する
        </Link>
      </p>
    </AuthLayout>
  );
}
