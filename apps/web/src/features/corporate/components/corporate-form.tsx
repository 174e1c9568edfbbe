import { useId, useState } from 'react';
import { useForm, type FieldErrors } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { createCorporateBodySchema, updateCorporateBodySchema, type CorporateDetail, type CreateCorporateBody, type UpdateCorporateBody } from '@poi/shared/schemas/corporate';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { getFieldErrorMessage } from '../../../lib/api-client';
import { useCreateCorporate, useUpdateCorporate } from '../api/admin-corporate-api';
import { companyTextValues } from './company-values';

const TEXT_FIELDS = [
  ['company_name', '会社名', true],
  ['company_name_kana', '会社名(カナ)', true],
  ['department', '部署名', false],
  ['postal_code', '郵便番号', true],
  ['address', '住所', true],
  ['phone', '電話番号', true],
  ['billing_contact_name', '請求担当者名', true],
  ['billing_emails', '請求書送付先メールアドレス(カンマ区切り)', true],
  ['corporate_number', '法人番号(13桁、任意)', false],
  ['registration_number', '適格請求書発行事業者の登録番号(任意)', false],
] as const;

/** What the inputs hold: text, as typed. */
const valuesSchema = z.object({
  ...companyTextValues,
  payment_method: z.string(),
  credit_limit: z.string(),
  payment_terms: z.string(),
  reason: z.string(),
  owner_user_id: z.string().optional(),
});
type Values = z.infer<typeof valuesSchema>;

/** The form's values as the API takes them: empty optional fields are null, e-mails a list, limits numbers. */
function corporatePayload(v: Values) {
  return {
    company_name: v.company_name.trim(),
    company_name_kana: v.company_name_kana.trim(),
    department: v.department.trim() || null,
    postal_code: v.postal_code.trim(),
    address: v.address.trim(),
    phone: v.phone.trim(),
    billing_contact_name: v.billing_contact_name.trim(),
    billing_emails: v.billing_emails.split(/[,\s、]+/).filter(Boolean),
    corporate_number: v.corporate_number.trim() || null,
    registration_number: v.registration_number.trim() || null,
    payment_method: v.payment_method,
    credit_limit: v.credit_limit.trim() ? Number(v.credit_limit) : null,
    payment_terms: v.payment_terms || undefined,
    reason: v.reason,
    ...(v.owner_user_id !== undefined ? { owner_user_id: v.owner_user_id.trim() } : {}),
  };
}

// The inputs are turned into the API's body, then checked with the server's own schema.
const createSchema = valuesSchema.transform((v): unknown => corporatePayload(v)).pipe(createCorporateBodySchema);
const updateSchema = valuesSchema.transform((v): unknown => corporatePayload(v)).pipe(updateCorporateBodySchema);

/** A field's first message; the e-mail list reports per address (`billing_emails.0`). */
function messageOf(errors: FieldErrors<Values>, key: keyof Values): string | undefined {
  const error: unknown = errors[key];
  const first = Array.isArray(error) ? error.find(Boolean) : error;
  return (first as { message?: string } | undefined)?.message;
}

const defaultsOf = (editing: CorporateDetail['account'] | null): Values => ({
  company_name: editing?.company_name ?? '',
  company_name_kana: editing?.company_name_kana ?? '',
  department: editing?.department ?? '',
  postal_code: editing?.postal_code ?? '',
  address: editing?.address ?? '',
  phone: editing?.phone ?? '',
  billing_contact_name: editing?.billing_contact_name ?? '',
  billing_emails: editing?.billing_emails.join(', ') ?? '',
  corporate_number: editing?.corporate_number ?? '',
  registration_number: editing?.registration_number ?? '',
  payment_method: editing?.payment_method ?? 'bank_transfer',
  credit_limit: editing?.credit_limit === null || editing?.credit_limit === undefined ? '' : String(editing.credit_limit),
  payment_terms: editing?.payment_terms ?? 'month_end_next_month',
  reason: '',
  ...(editing ? {} : { owner_user_id: '' }),
});

/**
 * Create a corporate account (with an existing user as owner) or edit one's company and billing
 * data, credit limit and terms (future invoices only). Checked with the server's own schema first.
 */
export function CorporateForm({ editing, onClose }: { editing: CorporateDetail['account'] | null; onClose: () => void }) {
  const formId = useId();
  const create = useCreateCorporate();
  const update = useUpdateCorporate(editing?.id ?? '');
  const [error, setError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<Values, unknown, CreateCorporateBody | UpdateCorporateBody>({
    resolver: zodResolver(editing ? updateSchema : createSchema),
    // Messages stay until the next submit, as the server would answer them.
    reValidateMode: 'onSubmit',
    defaultValues: defaultsOf(editing),
  });

  const submit = handleSubmit(async (body) => {
    setError(null);
    try {
      if (editing) await update.mutateAsync(body as UpdateCorporateBody);
      else await create.mutateAsync(body as CreateCorporateBody);
      toast.success(editing ? '法人アカウントの情報を変更しました' : '法人アカウントを作成しました');
      onClose();
    } catch (err) {
      setError(getFieldErrorMessage(err, '保存できませんでした'));
    }
  });

  const input = (key: keyof Values, label: string, required: boolean) => {
    const message = messageOf(errors, key);
    return (
      <FormField key={key} id={`${formId}-${key}`} label={label} required={required} error={message}>
        <input id={`${formId}-${key}`} className={inputClass} aria-invalid={message ? true : undefined} {...register(key)} />
      </FormField>
    );
  };

  return (
    <FormModal
      title={editing ? `法人情報の編集: ${editing.company_name}` : '法人アカウントの作成'}
      formId={formId}
      submitLabel={editing ? '変更を保存' : '作成する'}
      submitting={create.isPending || update.isPending}
      error={error}
      onClose={onClose}
      size="lg"
    >
      <form id={formId} noValidate onSubmit={(e) => void submit(e)} className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {editing ? null : input('owner_user_id', 'オーナーのユーザーID', true)}
        {TEXT_FIELDS.map(([key, label, required]) => input(key, label, required))}
        <FormField id={`${formId}-payment_method`} label="支払方法" required>
          <select id={`${formId}-payment_method`} className={inputClass} {...register('payment_method')}>
            <option value="bank_transfer">銀行振込(請求書払い)</option>
            <option value="card">クレジットカード</option>
          </select>
        </FormField>
        <FormField id={`${formId}-credit_limit`} label="与信限度額(円、空欄は上限なし)" error={errors.credit_limit?.message}>
          <input id={`${formId}-credit_limit`} type="number" min={0} step={1} inputMode="numeric" className={inputClass} {...register('credit_limit')} />
        </FormField>
        <div className="sm:col-span-2">
          <FormField id={`${formId}-reason`} label="理由(監査ログに記録されます)" required error={errors.reason?.message}>
            <textarea id={`${formId}-reason`} rows={2} className={inputClass} {...register('reason')} />
          </FormField>
        </div>
        {editing ? <p className="text-xs text-gray-700 sm:col-span-2">変更は今後発行する請求書から反映されます(発行済みの請求書は変わりません)。</p> : null}
      </form>
    </FormModal>
  );
}
