import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { CreditCard, Plus, Trash2 } from 'lucide-react';
import { toast } from 'react-toastify';
import { billingDetailsBodySchema, type BillingAccountView } from '@poi/shared/schemas/invoices';
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

type Details = { addressee: string; honorific: '様' | '御中'; postal_code: string; address: string; billing_emails: string[] };

function DetailsForm({ view }: { view: BillingAccountView }) {
  const { user } = useAuth();
  const a = view.account;
  const initial = (): Details => ({
    addressee: a?.addressee ?? user?.display_name ?? '',
    honorific: a?.honorific ?? '様',
    postal_code: a?.postal_code ?? '',
    address: a?.address ?? '',
    billing_emails: a?.billing_emails.length ? a.billing_emails : [user?.email ?? ''],
  });
  const [form, setForm] = useState<Details>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useSaveDetails();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = billingDetailsBodySchema.safeParse({
      ...form,
      postal_code: form.postal_code.trim() === '' ? null : form.postal_code,
      address: form.address.trim() === '' ? null : form.address,
      billing_emails: form.billing_emails.map((m) => m.trim()).filter(Boolean),
    });
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    save.mutate(parsed.data, {
      onSuccess: () => toast.success('請求先情報を保存しました'),
      onError: (err) => setErrors({ form: getErrorMessage(err, '請求先情報の保存に失敗しました') }),
    });
  };
  const text = (key: 'addressee' | 'postal_code' | 'address', label: string, required = false) => (
    <FormField id={`billing-${key}`} label={label} required={required} error={errors[key]}>
      <input
        id={`billing-${key}`}
        className={inputClass}
        value={form[key]}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `billing-${key}-error` : undefined}
      />
    </FormField>
  );
  return (
    <form onSubmit={submit} noValidate className="space-y-4 rounded-lg border border-gray-200 bg-white p-4" aria-labelledby="details-heading">
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
              <input type="radio" name="honorific" value={h} checked={form.honorific === h} onChange={() => setForm({ ...form, honorific: h })} />
              {h}
            </label>
          ))}
        </div>
      </fieldset>
      {text('postal_code', '郵便番号')}
      {text('address', '住所')}
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-gray-800">請求書送付先メールアドレス(1〜5件)</legend>
        {form.billing_emails.map((mail, i) => (
          <div key={i} className="flex gap-2">
            <input
              type="email"
              aria-label={`請求書送付先メールアドレス ${i + 1}`}
              className={inputClass}
              value={mail}
              onChange={(e) => setForm({ ...form, billing_emails: form.billing_emails.map((m, j) => (j === i ? e.target.value : m)) })}
            />
            {form.billing_emails.length > 1 ? (
              <Button variant="secondary" aria-label={`メールアドレス ${i + 1} を削除`} onClick={() => setForm({ ...form, billing_emails: form.billing_emails.filter((_, j) => j !== i) })}>
                <Trash2 className="h-4 w-4" aria-hidden="true" />
              </Button>
            ) : null}
          </div>
        ))}
        {form.billing_emails.length < 5 ? (
          <Button variant="secondary" onClick={() => setForm({ ...form, billing_emails: [...form.billing_emails, ''] })}>
            <Plus className="h-4 w-4" aria-hidden="true" />
            メールアドレスを追加
          </Button>
        ) : null}
        {errors.billing_emails ? (
          <p role="alert" className="text-sm text-red-700">
            {errors.billing_emails}
          </p>
        ) : null}
      </fieldset>
      {errors.form ? (
        <p role="alert" className="text-sm text-red-700">
          {errors.form}
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
