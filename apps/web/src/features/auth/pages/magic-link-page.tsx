import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { MAGIC_FAILURE_REDIRECT_MS } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { magicTokenSchema, safeRedirect, type LoginResponse } from '@poi/shared/schemas/auth';
import { Spinner } from '../../../components/ui/spinner';
import { authStore, isAuthenticated } from '../../../lib/auth-store';
import { getErrorMessage } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { verifyMagicLink } from '../api/auth-api';
import { AuthLayout } from '../components/auth-layout';

// A link is single use: a double click (or a second submit while the first is on its way) must
// not spend it twice and then show the second attempt's failure.
const inFlight = new Map<string, Promise<LoginResponse>>();
function verifyOnce(token: string): Promise<LoginResponse> {
  let pending = inFlight.get(token);
  if (!pending) {
    pending = verifyMagicLink(token).finally(() => inFlight.delete(token));
    inFlight.set(token, pending);
  }
  return pending;
}

/**
 * The page the mail's link opens. Loading it spends nothing: mail scanners and link prefetchers
 * (some run the page's JavaScript in a headless browser) open links, and a link spent on load
 * signed the scanner in and left the user's own click and code failing. The person presses
 * 「ログインする」, and only that POST signs in.
 */
export function MagicLinkPage() {
  usePageTitle('マジックリンク認証');
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [failed, setFailed] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const started = useRef(false);
  const tokenValid = magicTokenSchema.safeParse(token).success;
  // A malformed token is refused here, without calling the server.
  const failure = failed ?? (tokenValid ? null : messages.magicTokenInvalid);

  // Not cleared on unmount: the return to login must happen even if React re-mounts the page.
  const backToLoginSoon = () => window.setTimeout(() => navigate('/auth/login', { replace: true }), MAGIC_FAILURE_REDIRECT_MS);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (isAuthenticated(authStore.getState())) {
      toast.info(messages.alreadyLoggedIn);
      navigate('/dashboard', { replace: true });
      return;
    }
    if (!tokenValid) backToLoginSoon();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per page load
  }, []);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (submitting || failure) return;
    setSubmitting(true);
    verifyOnce(token)
      .then((login) => {
        authStore.signIn(login.token, login.user);
        // What the sign-in pages said (code sent, wrong code) stays behind with them: only the
        // sign-in itself is announced on the page the user goes on to.
        toast.dismiss();
        toast.clearWaitingQueue();
        toast.success(messages.loggedIn);
        navigate(safeRedirect(params.get('redirect')), { replace: true });
      })
      .catch((error: unknown) => {
        authStore.clear();
        const message = getErrorMessage(error, messages.magicFailed);
        toast.error(message);
        setSubmitting(false);
        setFailed(message);
        backToLoginSoon();
      });
  };

  return (
    <AuthLayout title="マジックリンク認証">
      {failure ? (
        <div role="alert" className="space-y-2 text-center">
          <p className="text-red-800">{failure}</p>
          <p className="text-sm text-gray-700">3秒後にログイン画面に戻ります…</p>
        </div>
      ) : (
        <form onSubmit={onSubmit} className="space-y-5">
          <p className="text-center text-sm text-gray-800">下のボタンを押してログインしてください。</p>
          <button
            type="submit"
            disabled={submitting}
            aria-disabled={submitting ? 'true' : undefined}
            className="flex min-h-11 w-full items-center justify-center gap-2 rounded-md bg-blue-700 px-4 py-2.5 font-medium text-white hover:bg-blue-800 focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 disabled:cursor-not-allowed disabled:bg-gray-400 disabled:text-gray-900"
          >
            {submitting ? <Spinner className="h-4 w-4" /> : null}
            {submitting ? 'ログインしています...' : 'ログインする'}
          </button>
          <p className="text-center text-xs text-gray-700">このリンクは一度だけ使用できます。心当たりがない場合は、このページを閉じてください。</p>
          <div role="status" className="sr-only">
            {submitting ? 'ログインしています...' : ''}
          </div>
        </form>
      )}
    </AuthLayout>
  );
}
