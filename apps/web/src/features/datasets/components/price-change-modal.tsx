import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { formatYen } from '@poi/shared/format';
import { PRICE_MAX, PRICE_MIN, PRICE_STEP } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { priceChangeBodySchema, PRICE_REASON_MAX } from '@poi/shared/schemas/datasets';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { getErrorMessage } from '../../../lib/api-client';
import { useChangePrice } from '../api/datasets-api';

type FormInput = z.input<typeof priceChangeBodySchema>;
type FormOutput = z.output<typeof priceChangeBodySchema>;

/** Price change: inline error and stays open on failure; closes and reloads on success. */
export function PriceChangeModal({ datasetId, currentPrice, onClose }: { datasetId: string; currentPrice: number; onClose: () => void }) {
  const mutation = useChangePrice(datasetId);
  const [serverError, setServerError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(priceChangeBodySchema),
    defaultValues: { new_price: currentPrice, reason: '' },
  });

  const onSubmit = handleSubmit(async (body) => {
    setServerError(null);
    try {
      await mutation.mutateAsync(body);
      toast.success(messages.priceChanged);
      onClose();
    } catch (error) {
      setServerError(getErrorMessage(error, messages.priceChangeFailed));
    }
  });

  return (
    <FormModal
      title="価格を変更"
      formId="price-change-form"
      submitLabel={isSubmitting ? '変更中...' : '変更する'}
      submitting={isSubmitting}
      error={serverError}
      onClose={onClose}
    >
      <p className="mb-4 text-sm text-gray-700">現在の価格: {formatYen(currentPrice, 2)} / 検索</p>
      <form id="price-change-form" onSubmit={onSubmit} noValidate className="space-y-4">
        <FormField id="new-price" label="新しい価格(円)" required hint={messages.priceHint} error={errors.new_price?.message}>
          <input
            id="new-price"
            type="number"
            inputMode="decimal"
            step={PRICE_STEP}
            min={PRICE_MIN}
            max={PRICE_MAX}
            aria-invalid={!!errors.new_price}
            className={inputClass}
            {...register('new_price')}
          />
        </FormField>
        <FormField id="price-reason" label="変更理由" error={errors.reason?.message}>
          <textarea id="price-reason" rows={3} maxLength={PRICE_REASON_MAX} className={inputClass} {...register('reason')} />
        </FormField>
      </form>
    </FormModal>
  );
}
