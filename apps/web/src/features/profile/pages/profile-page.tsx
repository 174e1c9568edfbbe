import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import { messages } from '@poi/shared/messages';
import { isAdmin } from '@poi/shared/roles';
import { updateProfileBodySchema, type UpdateProfileBody } from '@poi/shared/schemas/users';
import { AccountTypeBadge, AdminBadge } from '../../../components/ui/account-type-badge';
import { PageHeader } from '../../../components/ui/page-header';
import { Spinner } from '../../../components/ui/spinner';
import { getErrorMessage } from '../../../lib/api-client';
import { authStore, useAuth } from '../../../lib/auth-store';
import { useUpdateProfile } from '../api/update-profile';

export function ProfilePage() {
  const { user } = useAuth();
  const mutation = useUpdateProfile();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isDirty },
  } = useForm<UpdateProfileBody>({
    resolver: zodResolver(updateProfileBodySchema),
    defaultValues: { display_name: user?.display_name ?? '' },
  });

  useEffect(() => {
    reset({ display_name: user?.display_name ?? '' });
  }, [user?.display_name, reset]);

  const onSubmit = handleSubmit(async (body) => {
    try {
      const updated = await mutation.mutateAsync(body);
      authStore.setUser(updated);
      toast.success(messages.profileUpdated);
    } catch (error) {
      toast.error(getErrorMessage(error, messages.profileUpdateFailed));
    }
  });

  if (!user) return null;
  return (
    <div>
      <PageHeader title="プロフィール" description="アカウントの情報と表示名を管理します。" />
      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="account" className="rounded-lg border border-gray-200 bg-white p-5">
          <h2 id="account" className="font-semibold text-gray-900">
            アカウント情報
          </h2>
          <dl className="mt-4 space-y-3 text-sm">
            <div>
              <dt className="text-gray-700">名前</dt>
              <dd className="mt-0.5 font-medium text-gray-900">{user.display_name || '未設定'}</dd>
            </div>
            <div>
              <dt className="text-gray-700">メールアドレス</dt>
              <dd className="mt-0.5 break-all font-medium text-gray-900">{user.email}</dd>
            </div>
            <div>
              <dt className="text-gray-700">アカウント種別</dt>
              <dd className="mt-1 flex flex-wrap gap-1">
                <AccountTypeBadge type={user.account_type} />
                {isAdmin(user) ? <AdminBadge /> : null}
              </dd>
            </div>
          </dl>
        </section>
        <section aria-labelledby="edit" className="rounded-lg border border-gray-200 bg-white p-5">
          <h2 id="edit" className="font-semibold text-gray-900">
            表示名の変更
          </h2>
          <form onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
            <div>
              <label htmlFor="display_name" className="block text-sm font-medium text-gray-800">
                表示名
              </label>
              <input
                id="display_name"
                autoComplete="name"
                aria-invalid={errors.display_name ? 'true' : 'false'}
                aria-describedby={errors.display_name ? 'display-name-error' : undefined}
                className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600"
                {...register('display_name')}
              />
              {errors.display_name?.message ? (
                <p id="display-name-error" role="alert" className="mt-1 text-sm text-red-700">
                  {errors.display_name.message}
                </p>
              ) : null}
            </div>
            <button
              type="submit"
              disabled={mutation.isPending || !isDirty}
              className="inline-flex min-h-11 items-center gap-2 rounded-md bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:cursor-not-allowed disabled:bg-gray-400 disabled:text-gray-900"
            >
              {mutation.isPending ? <Spinner className="h-4 w-4" /> : null}
              {mutation.isPending ? '保存中...' : '保存'}
            </button>
          </form>
        </section>
      </div>
    </div>
  );
}
