import { useCallback, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Info } from 'lucide-react';
import { toast } from 'react-toastify';
import { messages } from '@poi/shared/messages';
import { safeRedirect } from '@poi/shared/redirect';
import { Spinner } from '../../../components/ui/spinner';
import { usePageTitle } from '../../../lib/use-page-title';
import { AuthLayout } from '../components/auth-layout';
import type * as LoginActionsModule from '../login-actions';

type LoginActions = typeof LoginActionsModule;
let actionsPromise: Promise<LoginActions> | null = null;
/** Loads the e-mail rule and the request once; the first keystroke starts it. */
const loadActions = (): Promise<LoginActions> => (actionsPromise ??= import('../login-actions'));

export function LoginPage() {
  usePageTitle('ログイン');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirect = safeRedirect(params.get('redirect'));
  const inputRef = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState('');
  const [actions, setActions] = useState<LoginActions | null>(null);
  // The field is checked on blur and on submit; once checked, every change checks it again.
  const [checked, setChecked] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);

  const ensureActions = useCallback(async () => {
    const loaded = await loadActions();
    setActions(loaded);
    return loaded;
  }, []);

  const parsed = actions ? actions.emailSchema.safeParse(email) : null;
  const fieldError = checked && parsed && !parsed.success ? (parsed.error.issues[0]?.message ?? messages.emailInvalid) : null;

  const submit = async () => {
    if (submitting) return;
    const { emailSchema, requestOtp, getErrorMessage } = await ensureActions();
    setChecked(true);
    const result = emailSchema.safeParse(inputRef.current?.value ?? email);
    if (!result.success) {
      // The message shows under the field and the cursor stays there to correct it.
      inputRef.current?.focus();
      return;
    }
    setServerError(null);
    setSubmitting(true);
    try {
      await requestOtp(result.data, redirect);
      toast.success(messages.otpSent);
      navigate(`/auth/verify-otp?${new URLSearchParams({ email: result.data, redirect }).toString()}`);
    } catch (error) {
      const message = getErrorMessage(error, messages.otpRequestFailed);
      setServerError(message);
      toast.error(message);
      setSubmitting(false);
    }
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit();
  };

  // The send button stays disabled until the address is valid (spec), and a form whose only
  // submit button is disabled ignores Enter: the field submits itself, so Enter always checks
  // the address and says what is wrong. Enter that confirms an IME conversion is not a submit.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void submit();
  };

  return (
    <AuthLayout title="ログイン">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <label htmlFor="email" className="block text-sm font-medium text-gray-800">
            メールアドレス
          </label>
          <input
            id="email"
            ref={inputRef}
            name="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            autoFocus
            placeholder="you@example.com"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              void ensureActions();
            }}
            onBlur={() => {
              void ensureActions().then(() => setChecked(true));
            }}
            onKeyDown={onKeyDown}
            aria-invalid={fieldError ? 'true' : 'false'}
            aria-describedby={fieldError ? 'email-error' : undefined}
            className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-base focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
          />
          {fieldError ? (
            <p id="email-error" role="alert" className="mt-1 text-sm text-red-700">
              {fieldError}
            </p>
          ) : null}
        </div>

        <div className="flex gap-3 rounded-md border border-blue-200 bg-blue-50 p-4 text-sm text-blue-900">
          <Info className="mt-0.5 h-5 w-5 shrink-0" aria-hidden="true" />
          <div>
            <p className="font-medium">パスワードは不要です</p>
            <p className="mt-1">
              ご入力のメールアドレスに6桁の認証コードとワンクリックでログインできるリンクをお送りします。新規登録の方も同じ手順でご利用いただけます。
            </p>
          </div>
        </div>

        {serverError ? (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
            {serverError}
          </p>
        ) : null}

        <button
          type="submit"
          disabled={!parsed?.success || submitting}
          className="flex w-full items-center justify-center gap-2 rounded-md bg-blue-700 px-4 py-2.5 font-medium text-white hover:bg-blue-800 focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 disabled:cursor-not-allowed disabled:bg-gray-400 disabled:text-gray-900"
        >
          {submitting ? <Spinner className="h-4 w-4" /> : null}
          {submitting ? '送信中...' : '認証コードを送信'}
        </button>
      </form>
      <p className="mt-6 text-center text-sm">
        <Link to="/" className="inline-flex min-h-6 items-center text-blue-800 underline hover:text-blue-900">
          ホームに戻る
        </Link>
      </p>
    </AuthLayout>
  );
}
