import { useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { POI_FIELD_MAX } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { poiFieldsSchema, type Poi } from '@poi/shared/schemas/pois';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { getFieldErrorMessage } from '../../../lib/api-client';
import { useRegisterPoi } from '../api/pois-api';
import { PoiMap } from './lazy-poi-map';
import { TagEditor } from './tag-editor';

type FormInput = z.input<typeof poiFieldsSchema>;
type FormOutput = z.output<typeof poiFieldsSchema>;

const textFields: Array<{ key: 'address' | 'category' | 'phone' | 'website' | 'image_url'; label: string; type?: string }> = [
  { key: 'address', label: '住所' },
  { key: 'category', label: 'カテゴリ' },
  { key: 'phone', label: '電話番号', type: 'tel' },
  { key: 'website', label: 'ウェブサイト', type: 'url' },
  { key: 'image_url', label: '画像URL', type: 'url' },
];

function pickedPoint([lat, lon]: unknown[]): { latitude: number; longitude: number } | undefined {
  const latitude = Number(lat);
  const longitude = Number(lon);
  return lat !== '' && lon !== '' && Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180
    ? { latitude, longitude }
    : undefined;
}

/** Empty, null or undefined fields are left out; tags are omitted when none remain. */
export function toPayload(values: FormOutput): FormOutput {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0))) as FormOutput;
}

/** POI create (and edit when `poi` is given): the spec's fields and bounds, submit reads '登録中...'. */
export function PoiFormModal({ datasetId, poi, onClose, onSaved }: { datasetId: string; poi?: Poi; onClose: () => void; onSaved?: (poi: Poi) => void }) {
  const mutation = useRegisterPoi();
  const [serverError, setServerError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setValue,
    control,
    formState: { errors, isSubmitting },
  } = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(poiFieldsSchema),
    defaultValues: {
      name: poi?.name ?? '',
      latitude: (poi?.latitude ?? '') as number,
      longitude: (poi?.longitude ?? '') as number,
      address: poi?.address ?? '',
      category: poi?.category ?? '',
      description: poi?.description ?? '',
      phone: poi?.phone ?? '',
      website: poi?.website ?? '',
      image_url: poi?.image_url ?? '',
      tags: poi?.tags ?? [],
    },
  });

  const picked = useWatch({ control, name: ['latitude', 'longitude'] });

  const onSubmit = handleSubmit(async (values) => {
    setServerError(null);
    try {
      const saved = await mutation.mutateAsync({ ...toPayload(values), dataset_id: datasetId, ...(poi ? { poi_id: poi.poi_id } : {}) });
      toast.success(poi ? messages.poiUpdated : messages.poiRegistered);
      onSaved?.(saved);
      onClose();
    } catch (error) {
      setServerError(getFieldErrorMessage(error, poi ? messages.poiUpdateFailed : messages.poiCreateFailed));
    }
  });

  const submitLabel = poi ? (isSubmitting ? '更新中...' : '更新') : isSubmitting ? '登録中...' : '登録';
  return (
    <FormModal
      title={poi ? 'POIを編集' : 'POIを登録'}
      formId="poi-form"
      submitLabel={submitLabel}
      submitting={isSubmitting}
      error={serverError}
      onClose={onClose}
      size="lg"
    >
      <form id="poi-form" onSubmit={onSubmit} noValidate className="grid gap-4 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <FormField id="poi-name" label="名称" required error={errors.name?.message}>
            <input id="poi-name" maxLength={POI_FIELD_MAX.name} aria-invalid={!!errors.name} className={inputClass} {...register('name')} />
          </FormField>
        </div>
        <FormField id="poi-latitude" label="緯度" required hint="-90 〜 90" error={errors.latitude?.message}>
          <input id="poi-latitude" type="number" inputMode="decimal" step="0.000001" min={-90} max={90} aria-invalid={!!errors.latitude} className={inputClass} {...register('latitude')} />
        </FormField>
        <FormField id="poi-longitude" label="経度" required hint="-180 〜 180" error={errors.longitude?.message}>
          <input id="poi-longitude" type="number" inputMode="decimal" step="0.000001" min={-180} max={180} aria-invalid={!!errors.longitude} className={inputClass} {...register('longitude')} />
        </FormField>
        <div className="sm:col-span-2">
          <p className="mb-1 text-xs text-gray-700">地図をクリックすると緯度・経度を入力できます</p>
          <PoiMap
            height="h-48"
            label="位置を選ぶ地図"
            center={pickedPoint(picked)}
            onPick={(lat, lon) => {
              setValue('latitude', lat, { shouldValidate: true, shouldDirty: true });
              setValue('longitude', lon, { shouldValidate: true, shouldDirty: true });
            }}
          />
        </div>
        {textFields.map((f) => (
          <div key={f.key} className={f.key === 'address' ? 'sm:col-span-2' : undefined}>
            <FormField id={`poi-${f.key}`} label={f.label} error={errors[f.key]?.message}>
              <input id={`poi-${f.key}`} type={f.type ?? 'text'} maxLength={POI_FIELD_MAX[f.key]} aria-invalid={!!errors[f.key]} className={inputClass} {...register(f.key)} />
            </FormField>
          </div>
        ))}
        <div className="sm:col-span-2">
          <FormField id="poi-description" label="説明" error={errors.description?.message}>
            <textarea id="poi-description" rows={3} maxLength={POI_FIELD_MAX.description} className={inputClass} {...register('description')} />
          </FormField>
        </div>
        <div className="sm:col-span-2">
          <FormField id="poi-tags" label="タグ" hint="カンマ(,)・読点(、)・Enter・「追加」で区切ります。Backspace で最後のタグを削除" error={errors.tags?.message}>
            <Controller
              control={control}
              name="tags"
              render={({ field }) => (
                <TagEditor
                  id="poi-tags"
                  value={Array.isArray(field.value) ? (field.value as string[]) : []}
                  onChange={field.onChange}
                  invalid={!!errors.tags}
                  describedBy={errors.tags ? 'poi-tags-error poi-tags-hint' : 'poi-tags-hint'}
                />
              )}
            />
          </FormField>
        </div>
      </form>
    </FormModal>
  );
}
