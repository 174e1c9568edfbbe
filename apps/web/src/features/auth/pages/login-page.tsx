import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { zodResolver } from '@hookform/resolvers/zod';
import { Info } from 'lucide-react';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { messages } from '@poi/shared/messages';
import { emailSchema, safeRedirect } from '@poi/shared/schemas/auth';
import { Spinner } from '../../../components/ui/spinner';
import { getErrorMessage } from '../../../lib/api-client';
import { usePageTitle } from '../../../lib/use-page-title';
import { requestOtp } from '../api/auth-api';
import { AuthLayout } from '../components/auth-layout';

const loginFormSchema = z.object({ email: emailSchema });
type LoginForm = z.input<typeof loginFormSchema>;

export function LoginPage() {
  usePageTitle('ログイン');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirect = safeRedirect(params.get('redirect'));
  const [serverError, setServerError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    control,
    formState: { errors, isSubmitting },
  } = useForm<LoginForm, unknown, z.output<typeof loginFormSchema>>({
    resolver: zodResolver(loginFormSchema),
    mode: 'onBlur',
    reValidateMode: 'onChange',
    defaultValues: { email: '' },
  });
  const emailValid = emailSchema.safeParse(useWatch({ control, name: 'email' })).success;

  const onSubmit = handleSubmit(async ({ email }) => {
    setServerError(null);
    try {
      await requestOtp(email, redirect);
      toast.success(messages.otpSent);
      navigate(`/auth/verify-otp?${new URLSearchParams({ email, redirect }).toString()}`);
    } catch (error) {
      const message = getErrorMessage(error, messages.otpRequestFailed);
      setServerError(message);
      toast.error(message);
    }
  });

  return (
    <AuthLayout title="ログイン">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <label htmlFor="email" className="block text-sm font-medium text-gray-800">
            メールアドレス
          </label>
          <input
            id="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            autoFocus
            placeholder="you@example.com"
            aria-invalid={errors.email ? 'true' : 'false'}
            aria-describedby={errors.email ? 'email-error' : undefined}
            className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-base focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
            {...register('email')}
          />
          {errors.email?.message ? (
            <p id="email-error" role="alert" className="mt-1 text-sm text-red-700">
              {errors.email.message}
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
          disabled={!emailValid || isSubmitting}
          className="flex w-full items-center justify-center gap-2 rounded-md bg-blue-700 px-4 py-2.5 font-medium text-white hover:bg-blue-800 focus:outline-none focus:ring-2 focus:ring-blue-600 focus:ring-offset-2 disabled:cursor-not-allowed disabled:bg-gray-400 disabled:text-gray-900"
        >
          {isSubmitting ? <Spinner className="h-4 w-4" /> : null}
          {isSubmitting ? '送信中...' : '認証コードを送信'}
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
