import { useEffect, useRef, useState } from 'react';
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

// A link is single use: React's development double effects must not spend it twice.
const inFlight = new Map<string, Promise<LoginResponse>>();
function verifyOnce(token: string): Promise<LoginResponse> {
  let pending = inFlight.get(token);
  if (!pending) {
    pending = verifyMagicLink(token);
    inFlight.set(token, pending);
  }
  return pending;
}

export function MagicLinkPage() {
  usePageTitle('マジックリンク認証');
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    // Not cleared on unmount: the return to login must happen even if React re-mounts the page.
    const failWith = (message: string) => {
      setFailure(message);
      window.setTimeout(() => navigate('/auth/login', { replace: true }), MAGIC_FAILURE_REDIRECT_MS);
    };

    if (isAuthenticated(authStore.getState())) {
      toast.info(messages.alreadyLoggedIn);
      navigate('/dashboard', { replace: true });
      return;
    }
    if (!magicTokenSchema.safeParse(token).success) {
      failWith(messages.magicTokenInvalid);
      return;
    }
    verifyOnce(token)
      .then((login) => {
        authStore.signIn(login.token, login.user);
        toast.success(messages.loggedIn);
        navigate(safeRedirect(params.get('redirect')), { replace: true });
      })
      .catch((error: unknown) => {
        authStore.clear();
        const message = getErrorMessage(error, messages.magicFailed);
        toast.error(message);
        failWith(message);
      });
  }, [navigate, params, token]);

  return (
    <AuthLayout title="マジックリンク認証">
      {failure ? (
        <div role="alert" className="space-y-2 text-center">
          <p className="text-red-800">{failure}</p>
          <p className="text-sm text-gray-700">3秒後にログイン画面に戻ります…</p>
        </div>
      ) : (
        <div role="status" className="flex flex-col items-center gap-3 text-gray-800">
          <Spinner className="h-8 w-8 text-blue-700" />
          <p>ログインしています...</p>
        </div>
      )}
    </AuthLayout>
  );
}
