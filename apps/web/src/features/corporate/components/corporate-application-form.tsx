import type { ReactNode } from 'react';
import { useForm, type FieldErrors } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { messages } from '@poi/shared/messages';
import { corporateApplicationBodySchema, type CorporateApplicationBody } from '@poi/shared/schemas/corporate';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { companyTextValues } from './company-values';

/** What the inputs hold: text as typed, one billing e-mail. */
const applicationValuesSchema = z.object({
  ...companyTextValues,
  payment_method: z.enum(['card', 'bank_transfer']),
});
export type ApplicationValues = z.infer<typeof applicationValuesSchema>;

export const EMPTY_APPLICATION: ApplicationValues = {
  company_name: '',
  company_name_kana: '',
  department: '',
  postal_code: '',
  address: '',
  phone: '',
  billing_contact_name: '',
  billing_emails: '',
  corporate_number: '',
  registration_number: '',
  payment_method: 'bank_transfer',
};

// Empty optional fields are null and the e-mail a list, then the server's own schema checks the application.
const applicationSchema = applicationValuesSchema
  .transform(
    (v): unknown => ({
      ...v,
      department: v.department.trim() || null,
      corporate_number: v.corporate_number.trim() || null,
      registration_number: v.registration_number.trim() || null,
      billing_emails: [v.billing_emails.trim()].filter(Boolean),
    }),
  )
  .pipe(corporateApplicationBodySchema);

/** A field's message; the e-mail list reports per address (`billing_emails.0`). */
function messageOf(errors: FieldErrors<ApplicationValues>, key: keyof ApplicationValues): string | undefined {
  const error: unknown = errors[key];
  const first = Array.isArray(error) ? error.find(Boolean) : error;
  return (first as { message?: string } | undefined)?.message;
}

type TextKey = Exclude<keyof ApplicationValues, 'billing_emails' | 'payment_method'>;

/** The corporate plan's application: company and billing data, how to pay; checked before the confirmation. */
export function CorporateApplicationForm({
  values,
  cardPaymentsAvailable,
  heading,
  onNext,
  onBack,
}: {
  values: ApplicationValues;
  cardPaymentsAvailable: boolean;
  heading: ReactNode;
  onNext: (values: ApplicationValues, application: CorporateApplicationBody) => void;
  /** Back to the plans, with what was typed so far (kept for the next visit). */
  onBack: (values: ApplicationValues) => void;
}) {
  const {
    register,
    handleSubmit,
    getValues,
    formState: { errors },
  } = useForm<ApplicationValues, unknown, CorporateApplicationBody>({
    resolver: zodResolver(applicationSchema),
    // Messages stay until the next "確認へ進む"; the step heading keeps the focus.
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
    defaultValues: values,
  });
  const next = handleSubmit((application) => onNext(getValues(), application));

  const text = (key: TextKey, label: string, required = false, hint?: string) => {
    const message = messageOf(errors, key);
    return (
      <FormField id={`corp-${key}`} label={label} required={required} error={message} hint={hint}>
        <input
          id={`corp-${key}`}
          className={inputClass}
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? `corp-${key}-error` : hint ? `corp-${key}-hint` : undefined}
          {...register(key)}
        />
      </FormField>
    );
  };
  const emailError = messageOf(errors, 'billing_emails');

  return (
    <form onSubmit={(e) => void next(e)} noValidate className="space-y-4 rounded-lg border border-gray-200 bg-white p-4">
      {heading}
      <div className="grid gap-4 md:grid-cols-2">
        {text('company_name', '会社名', true)}
        {text('company_name_kana', '会社名(カナ)', true)}
        {text('department', '部署名')}
        {text('postal_code', '郵便番号', true, '例: 100-0005')}
        {text('address', '住所', true)}
        {text('phone', '電話番号', true)}
        {text('billing_contact_name', '請求担当者名', true)}
        {text('corporate_number', '法人番号', false, '13桁(任意)')}
        {text('registration_number', '適格請求書発行事業者登録番号', false, 'T + 13桁(任意)')}
      </div>
      <FormField id="corp-billing-email" label="請求書送付先メールアドレス" required error={emailError}>
        <input id="corp-billing-email" type="email" className={inputClass} aria-invalid={emailError ? true : undefined} {...register('billing_emails')} />
      </FormField>
      <fieldset>
        <legend className="text-sm font-medium text-gray-800">お支払い方法</legend>
        <div className="mt-1 flex flex-col gap-2 text-sm sm:flex-row sm:gap-6">
          <label className="flex items-center gap-2">
            <input
              type="radio"
              value="card"
              disabled={!cardPaymentsAvailable}
              aria-describedby={cardPaymentsAvailable ? undefined : 'corp-card-unavailable'}
              {...register('payment_method')}
            />
            クレジットカード
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" value="bank_transfer" {...register('payment_method')} />
            請求書払い(銀行振込)
          </label>
        </div>
        {/* The server refuses a card application then (503 with this text); the choice says so first. */}
        {cardPaymentsAvailable ? null : (
          <p id="corp-card-unavailable" className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-950">
            {messages.cardUnavailable}
          </p>
        )}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={() => onBack(getValues())}>
          戻る
        </Button>
        <Button type="submit">確認へ進む</Button>
      </div>
    </form>
  );
}
