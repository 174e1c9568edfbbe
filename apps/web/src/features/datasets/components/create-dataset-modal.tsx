import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { PRICE_MAX, PRICE_MIN, PRICE_STEP } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { assignDatasetBodySchema, DATASET_DESCRIPTION_MAX, DATASET_NAME_MAX } from '@poi/shared/schemas/datasets';
import type { AdminUser } from '@poi/shared/schemas/users';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { SearchCombobox, type ComboboxResults } from '../../../components/ui/search-combobox';
import { getErrorMessage } from '../../../lib/api-client';
import { useCreateDataset, useDataProviders } from '../api/datasets-api';

type FormInput = z.input<typeof assignDatasetBodySchema>;

const pickers = [
  { field: 'assigned_user_id', id: 'ds-editor', label: 'POI編集者(データプロバイダー)', hint: '未選択の場合はプラットフォームが管理します', none: 'プラットフォーム管理' },
  { field: 'provider_user_id', id: 'ds-recipient', label: '収益受取人(データプロバイダー)', hint: '未選択の場合は収益はプラットフォームに帰属します', none: 'プラットフォーム' },
] as const;
type FormOutput = z.output<typeof assignDatasetBodySchema>;

const providerLabel = (u: AdminUser) => (u.display_name ? `${u.display_name} (${u.email})` : u.email);

/** Data providers, 100 per request (the admin user list's limit), narrowed by what is typed. */
function useProviderResults(keyword: string, enabled: boolean): ComboboxResults<AdminUser> {
  const query = useDataProviders(enabled, keyword);
  return {
    items: query.data?.users,
    total: query.data?.total ?? 0,
    fetching: query.isFetching,
    error: query.isError ? 'データプロバイダーの一覧を取得できませんでした' : null,
  };
}

/** Create dataset: platform admins also choose the POI editor and the revenue recipient. */
export function CreateDatasetModal({ asPlatformAdmin, onClose, onCreated }: { asPlatformAdmin: boolean; onClose: () => void; onCreated?: (id: string) => void }) {
  const mutation = useCreateDataset();
  const [chosen, setChosen] = useState<Record<(typeof pickers)[number]['field'], AdminUser | null>>({ assigned_user_id: null, provider_user_id: null });
  const [serverError, setServerError] = useState<string | null>(null);
  const {
    register,
    setValue,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(assignDatasetBodySchema),
    defaultValues: { name: '', description: '', price_per_search: '' as unknown as number, assigned_user_id: '', provider_user_id: '' },
  });

  const onSubmit = handleSubmit(async (body) => {
    setServerError(null);
    try {
      const created = await mutation.mutateAsync({ body, asPlatformAdmin });
      toast.success(messages.datasetCreated);
      onCreated?.(created.dataset_id);
      onClose();
    } catch (error) {
      setServerError(getErrorMessage(error, messages.datasetCreateFailed));
    }
  });

  return (
    <FormModal
      title="データセットを作成"
      formId="create-dataset-form"
      submitLabel={isSubmitting ? '作成中...' : '作成'}
      submitting={isSubmitting}
      error={serverError}
      onClose={onClose}
    >
      <form id="create-dataset-form" onSubmit={onSubmit} noValidate className="space-y-4">
        <FormField id="ds-name" label="データセット名" required error={errors.name?.message}>
          <input id="ds-name" maxLength={DATASET_NAME_MAX} aria-invalid={!!errors.name} className={inputClass} {...register('name')} />
        </FormField>
        <FormField id="ds-description" label="説明" error={errors.description?.message}>
          <textarea id="ds-description" rows={3} maxLength={DATASET_DESCRIPTION_MAX} className={inputClass} {...register('description')} />
        </FormField>
        <FormField id="ds-price" label="1検索あたりの価格(円)" required hint={messages.priceHint} error={errors.price_per_search?.message}>
          <input
            id="ds-price"
            type="number"
            inputMode="decimal"
            step={PRICE_STEP}
            min={PRICE_MIN}
            max={PRICE_MAX}
            aria-invalid={!!errors.price_per_search}
            className={inputClass}
            {...register('price_per_search')}
          />
        </FormField>
        {asPlatformAdmin ? (
          <>
            {pickers.map((picker) => (
              <FormField key={picker.field} id={picker.id} label={picker.label} hint={picker.hint} error={errors[picker.field]?.message}>
                <SearchCombobox<AdminUser>
                  id={picker.id}
                  value={chosen[picker.field]}
                  onChange={(u) => {
                    setChosen((c) => ({ ...c, [picker.field]: u }));
                    setValue(picker.field, u?.id ?? '', { shouldValidate: true });
                  }}
                  useResults={useProviderResults}
                  keyOf={(u) => u.id}
                  labelOf={providerLabel}
                  noneLabel={picker.none}
                  describedBy={`${picker.id}-hint`}
                  invalid={!!errors[picker.field]}
                  listLabel="データプロバイダーの候補"
                  toggleLabel="データプロバイダーの候補を開く"
                  placeholder="名前・メールアドレスで検索して選択"
                  narrowHint="名前やメールアドレスの一部を入力すると絞り込めます"
                  emptyText="該当するデータプロバイダーはいません"
                />
              </FormField>
            ))}
          </>
        ) : null}
      </form>
    </FormModal>
  );
}
