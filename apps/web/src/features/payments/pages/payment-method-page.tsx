import { useState } from 'react';
import { useFieldArray, useForm, type FieldErrors } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Link } from 'react-router';
import { CreditCard, Plus, Trash2 } from 'lucide-react';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { billingDetailsBodySchema, type BillingAccountView, type BillingDetailsBody } from '@poi/shared/schemas/invoices';
import { Button } from '../../../components/ui/button';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth-store';
import { startCheckout, useAccount, useRemoveCard, useSaveDetails } from '../api/payments-api';

function CardSection({ view }: { view: BillingAccountView }) {
  const [confirming, setConfirming] = useState(false);
  const [starting, setStarting] = useState(false);
  const remove = useRemoveCard();
  const card = view.account?.card ?? null;
  const available = view.card_payments_available;
  const register = () => {
    setStarting(true);
    startCheckout('card').catch((err: unknown) => {
      setStarting(false);
      toast.error(getErrorMessage(err, 'カード登録を開始できませんでした'));
    });
  };
  return (
    <section aria-labelledby="card-heading" className="space-y-3 rounded-lg border border-gray-200 bg-white p-4">
      <h2 id="card-heading" className="font-semibold text-gray-900">
        登録済みのカード
      </h2>
      {!available ? (
        <p role="status" className="rounded-md bg-amber-50 p-3 text-sm text-amber-950">
          現在カード決済をご利用いただけません。銀行振込(法人の請求書払い)は引き続きご利用いただけます。
        </p>
      ) : null}
      <p className="flex items-center gap-2 text-sm text-gray-900">
        <CreditCard className="h-5 w-5 text-gray-700" aria-hidden="true" />
        {card ? `${card.brand.toUpperCase()} •••• ${card.last4}(有効期限 ${String(card.exp_month).padStart(2, '0')}/${card.exp_year})` : 'カードは登録されていません'}
      </p>
      {view.account_type === 'trial' ? (
        <p className="text-sm text-gray-700">
          トライアルのカード登録は{' '}
          <Link to="/upgrade" className="font-medium text-blue-800 underline">
            プランのアップグレード
          </Link>{' '}
          から行えます。
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button onClick={register} disabled={!available || starting || view.account_type === 'trial'}>
          {starting ? '移動中...' : card ? 'カードを変更' : 'カードを登録'}
        </Button>
        {card ? (
          <Button variant="secondary" onClick={() => setConfirming(true)} disabled={!available}>
            カードを削除
          </Button>
        ) : null}
      </div>
      {view.has_open_invoice && card ? <p className="text-xs text-gray-700">未払いの請求書がある間はカードを削除できません。</p> : null}
      {confirming ? (
        <ConfirmDialog
          title="カードを削除"
          message={'登録済みのカードを削除します。\n削除後の請求はカードで決済されません。'}
          confirmLabel="削除する"
          busy={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            remove.mutate(undefined, {
              onSuccess: (res) => {
                setConfirming(false);
                toast.success(res.message ?? 'カードを削除しました');
              },
              onError: (err) => {
                setConfirming(false);
                toast.error(getErrorMessage(err, 'カードの削除に失敗しました'));
              },
            })
          }
        />
      ) : null}
    </section>
  );
}

/** What the inputs hold; e-mail rows are objects because a field array keys its rows. */
const detailsFormSchema = z.object({
  addressee: z.string(),
  honorific: z.enum(['様', '御中']),
  postal_code: z.string(),
  address: z.string(),
  billing_emails: z.array(z.object({ value: z.string() })),
});
type DetailsValues = z.infer<typeof detailsFormSchema>;

// Empty optional fields are null and blank e-mail rows are dropped, then the server's own schema checks the body.
const detailsSchema = detailsFormSchema
  .transform(
    (v): unknown => ({
      ...v,
      postal_code: v.postal_code.trim() === '' ? null : v.postal_code,
      address: v.address.trim() === '' ? null : v.address,
      billing_emails: v.billing_emails.map((m) => m.value.trim()).filter(Boolean),
    }),
  )
  .pipe(billingDetailsBodySchema);

/** The e-mail list's message: for the list (how many) or for the first wrong address. */
function emailsError(errors: FieldErrors<DetailsValues>): string | undefined {
  const error = errors.billing_emails;
  if (!error) return undefined;
  if (error.message) return error.message;
  if (error.root?.message) return error.root.message;
  const first: unknown = Array.isArray(error) ? error.find(Boolean) : undefined;
  return (first as { message?: string } | undefined)?.message;
}

function DetailsForm({ view }: { view: BillingAccountView }) {
  const { user } = useAuth();
  const a = view.account;
  const [formError, setFormError] = useState<string | null>(null);
  const save = useSaveDetails();
  const {
    register,
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<DetailsValues, unknown, BillingDetailsBody>({
    resolver: zodResolver(detailsSchema),
    // Messages stay until the next save.
    reValidateMode: 'onSubmit',
    defaultValues: {
      addressee: a?.addressee ?? user?.display_name ?? '',
      honorific: a?.honorific ?? '様',
      postal_code: a?.postal_code ?? '',
      address: a?.address ?? '',
      billing_emails: (a?.billing_emails.length ? a.billing_emails : [user?.email ?? '']).map((value) => ({ value })),
    },
  });
  const emails = useFieldArray({ control, name: 'billing_emails' });

  const submit = handleSubmit((body) => {
    setFormError(null);
    save.mutate(body, {
      onSuccess: () => toast.success('請求先情報を保存しました'),
      onError: (err) => setFormError(getErrorMessage(err, '請求先情報の保存に失敗しました')),
    });
  });
  const text = (key: 'addressee' | 'postal_code' | 'address', label: string, required = false) => (
    <FormField id={`billing-${key}`} label={label} required={required} error={errors[key]?.message}>
      <input
        id={`billing-${key}`}
        className={inputClass}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `billing-${key}-error` : undefined}
        {...register(key)}
      />
    </FormField>
  );
  const emailsMessage = emailsError(errors);
  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4 rounded-lg border border-gray-200 bg-white p-4" aria-labelledby="details-heading">
      <h2 id="details-heading" className="font-semibold text-gray-900">
        請求先情報
      </h2>
      <p className="text-sm text-gray-700">変更は次回以降に発行する請求書に反映されます。</p>
      {text('addressee', '宛名', true)}
      <fieldset>
        <legend className="text-sm font-medium text-gray-800">敬称</legend>
        <div className="mt-1 flex gap-4 text-sm">
          {(['様', '御中'] as const).map((h) => (
            <label key={h} className="flex items-center gap-1">
              <input type="radio" value={h} {...register('honorific')} />
              {h}
            </label>
          ))}
        </div>
      </fieldset>
      {text('postal_code', '郵便番号')}
      {text('address', '住所')}
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-gray-800">請求書送付先メールアドレス(1〜5件)</legend>
        {emails.fields.map((field, i) => (
          <div key={field.id} className="flex gap-2">
            <input type="email" aria-label={`請求書送付先メールアドレス ${i + 1}`} className={inputClass} {...register(`billing_emails.${i}.value`)} />
            {emails.fields.length > 1 ? (
              <Button variant="secondary" aria-label={`メールアドレス ${i + 1} を削除`} onClick={() => emails.remove(i)}>
                <Trash2 className="h-4 w-4" aria-hidden="true" />
              </Button>
            ) : null}
          </div>
        ))}
        {emails.fields.length < 5 ? (
          <Button variant="secondary" onClick={() => emails.append({ value: '' }, { shouldFocus: false })}>
            <Plus className="h-4 w-4" aria-hidden="true" />
            メールアドレスを追加
          </Button>
        ) : null}
        {emailsMessage ? (
          <p role="alert" className="text-sm text-red-700">
            {emailsMessage}
          </p>
        ) : null}
      </fieldset>
      {formError ? (
        <p role="alert" className="text-sm text-red-700">
          {formError}
        </p>
      ) : null}
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? '保存中...' : '請求先情報を保存'}
      </Button>
    </form>
  );
}

/** /payment-method: the default card (through Stripe Checkout) and the billing details. */
export function PaymentMethodPage() {
  const account = useAccount();
  return (
    <div className="space-y-6">
      <PageHeader title="お支払い方法" description="カードの登録・変更・削除と、請求書の宛名や送付先を管理します。カード情報はStripeが保管し、当サービスには保存されません。" />
      {account.isPending ? (
        <LoadingBlock />
      ) : account.isError ? (
        <ErrorBlock message={getErrorMessage(account.error, 'お支払い方法の取得に失敗しました')} onRetry={() => void account.refetch()} />
      ) : (
        <>
          <CardSection view={account.data} />
          <DetailsForm key={account.data.account?.id ?? 'none'} view={account.data} />
        </>
      )}
    </div>
  );
}
