import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { z } from 'zod';
import { dayOf } from '@poi/shared/billing-time';
import { API_KEY_NAME_MAX, API_KEY_RESTRICTIONS_MAX } from '@poi/shared/limits';
import { createApiKeyBodySchema } from '@poi/shared/schemas/api-keys';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { getFieldErrorMessage } from '../../../lib/api-client';
import { useCreateApiKey, type IssuedKey } from '../api/api-keys-api';

type FormInput = z.input<typeof createApiKeyBodySchema>;
type FormOutput = z.output<typeof createApiKeyBodySchema>;

/** The message of a list field: its own, or that of its first bad entry. */
function listError(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const own = (error as { message?: unknown }).message;
  if (typeof own === 'string' && own) return own;
  if (Array.isArray(error)) return error.map(listError).find(Boolean);
  return undefined;
}

/** Create an API key: a name, and optionally an expiry and the IPs/referrers it may be used from. */
export function CreateKeyModal({ onClose, onCreated }: { onClose: () => void; onCreated: (issued: IssuedKey) => void }) {
  const mutation = useCreateApiKey();
  const [serverError, setServerError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(createApiKeyBodySchema),
    defaultValues: { name: '', expires_at: '', allowed_ips: '', allowed_referrers: '' },
  });

  const onSubmit = handleSubmit(async (body) => {
    setServerError(null);
    try {
      onCreated(await mutation.mutateAsync(body));
    } catch (error) {
      setServerError(getFieldErrorMessage(error, 'APIキーの作成に失敗しました'));
    }
  });

  return (
    <FormModal
      title="APIキーを作成"
      formId="create-key-form"
      submitLabel={isSubmitting ? '作成中...' : '作成'}
      submitting={isSubmitting}
      error={serverError}
      onClose={onClose}
    >
      <form id="create-key-form" onSubmit={onSubmit} noValidate className="space-y-4">
        <FormField id="key-name" label="キー名" required hint="用途がわかる名前(例: 本番サーバー、スマホアプリ)" error={errors.name?.message}>
          <input id="key-name" maxLength={API_KEY_NAME_MAX} aria-invalid={!!errors.name} className={inputClass} {...register('name')} />
        </FormField>
        <FormField id="key-expires" label="有効期限" hint="指定した日の終わり(日本時間)まで有効です。空欄の場合は無期限です" error={errors.expires_at?.message}>
          <input id="key-expires" type="date" min={dayOf()} aria-invalid={!!errors.expires_at} className={inputClass} {...register('expires_at')} />
        </FormField>
        <FormField
          id="key-ips"
          label="許可するIPアドレス"
          hint={`カンマまたは改行区切り、最大${API_KEY_RESTRICTIONS_MAX}件(例: 203.0.113.5, 203.0.113.0/24)。空欄の場合は制限しません`}
          error={listError(errors.allowed_ips)}
        >
          <textarea id="key-ips" rows={2} aria-invalid={!!errors.allowed_ips} className={`${inputClass} font-mono`} {...register('allowed_ips')} />
        </FormField>
        <FormField
          id="key-referrers"
          label="許可するリファラー"
          hint={`ブラウザから使う場合のホスト名(例: example.com, *.example.com)。空欄の場合は制限しません`}
          error={listError(errors.allowed_referrers)}
        >
          <textarea id="key-referrers" rows={2} aria-invalid={!!errors.allowed_referrers} className={`${inputClass} font-mono`} {...register('allowed_referrers')} />
        </FormField>
      </form>
    </FormModal>
  );
}
