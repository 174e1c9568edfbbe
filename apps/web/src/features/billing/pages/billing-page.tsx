import { useEffect } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { BILLING_FETCH_FAILED, useBillingAccount, useBudget, useCurrentCharges } from '../api/billing-api';
import { BudgetForm } from '../components/budget-form';
import { CurrentChargesTable } from '../components/current-charges';
import { InvoiceList } from '../components/invoice-list';
import { PAYMENT_METHOD_LABELS } from '../components/labels';
import { TransferInstructions } from '../components/transfer-instructions';

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <h2 id={id} className="text-lg font-semibold text-gray-900">
        {title}
      </h2>
      {children}
    </section>
  );
}

function PaymentSummary() {
  const account = useBillingAccount();
  if (account.isPending) return <LoadingBlock />;
  if (account.isError) return <ErrorBlock message={getErrorMessage(account.error, BILLING_FETCH_FAILED)} onRetry={() => void account.refetch()} />;
  const { account: a, account_type } = account.data;
  if (!a) {
    return (
      <div className="rounded-lg border border-gray-200 bg-white p-4 text-sm text-gray-800">
        <p>まだ請求先が作成されていません。{account_type === 'trial' ? 'トライアルでは無料のデータセットを無料枠の範囲でご利用いただけます。' : ''}</p>
        <p className="mt-2 flex flex-wrap gap-4">
          {account_type === 'trial' ? (
            <Link to="/upgrade" className="inline-block py-1 font-medium text-blue-800 underline">
              プランをアップグレード
            </Link>
          ) : null}
          <Link to="/payment-method" className="inline-block py-1 font-medium text-blue-800 underline">
            お支払い方法を管理
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-lg border border-gray-200 bg-white p-4 text-sm">
        <dt className="text-gray-700">お支払い方法</dt>
        <dd>{PAYMENT_METHOD_LABELS[a.payment_method]}</dd>
        <dt className="text-gray-700">カード</dt>
        <dd>{a.card ? `${a.card.brand.toUpperCase()} •••• ${a.card.last4}(有効期限 ${String(a.card.exp_month).padStart(2, '0')}/${a.card.exp_year})` : 'カード未登録'}</dd>
        <dt className="text-gray-700">宛名</dt>
        <dd>
          {a.addressee} {a.honorific}
        </dd>
        <dt className="text-gray-700">お客様番号</dt>
        <dd className="font-mono">{a.customer_number}</dd>
        {a.credit > 0 ? (
          <>
            <dt className="text-gray-700">次回請求に充当</dt>
            <dd>¥{a.credit.toLocaleString('ja-JP')}</dd>
          </>
        ) : null}
      </dl>
      <Link to="/payment-method" className="inline-block py-1 text-sm font-medium text-blue-800 underline">
        お支払い方法を管理
      </Link>
      {a.bank_transfer ? <TransferInstructions data={a.bank_transfer} /> : null}
    </div>
  );
}

/** /billing: this month so far, payment method, budget and the invoices. */
export function BillingPage() {
  const current = useCurrentCharges();
  const budget = useBudget();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  // Back from paying on Stripe's page (3-D Secure): show that invoice.
  const paidInvoice = params.get('paid') === '1' ? params.get('invoice') : null;
  useEffect(() => {
    if (!paidInvoice) return;
    toast.success('お支払いを受け付けました');
    void navigate(`/billing/invoices/${encodeURIComponent(paidInvoice)}`, { replace: true });
  }, [paidInvoice, navigate]);

  return (
    <div className="space-y-8">
      <PageHeader title="請求・お支払い" description="今月のご利用見込み、お支払い方法、予算と請求書です。請求書は毎月1日に前月分を発行します。" />
      <Section id="current-heading" title="今月のご利用(見込み)">
        {current.isPending ? (
          <LoadingBlock />
        ) : current.isError ? (
          <ErrorBlock message={getErrorMessage(current.error, BILLING_FETCH_FAILED)} onRetry={() => void current.refetch()} />
        ) : (
          <CurrentChargesTable data={current.data} />
        )}
      </Section>
      <Section id="payment-heading" title="お支払い方法">
        <PaymentSummary />
      </Section>
      <Section id="budget-heading" title="予算とアラート">
        {budget.isPending ? (
          <LoadingBlock />
        ) : budget.isError ? (
          <ErrorBlock message={getErrorMessage(budget.error, BILLING_FETCH_FAILED)} onRetry={() => void budget.refetch()} />
        ) : (
          <BudgetForm key={`${budget.data.monthly_limit}:${budget.data.hard_stop}`} budget={budget.data} />
        )}
      </Section>
      <Section id="invoices-heading" title="請求書">
        <InvoiceList />
      </Section>
    </div>
  );
}
