import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { PageHeader } from '../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../components/ui/state-blocks';
import { getErrorMessage } from '../../lib/api-client';
import { useBudget } from '../../features/budgets/api/budgets-api';
import { BudgetForm } from '../../features/budgets/components/budget-form';
import { BILLING_FETCH_FAILED, useBillingAccount, useCurrentCharges } from '../../features/invoices/api/invoices-api';
import { CurrentChargesTable } from '../../features/invoices/components/current-charges';
import { InvoiceList } from '../../features/invoices/components/invoice-list';
import { PaymentSummary } from '../../features/invoices/components/payment-summary';
import { usePlanState } from '../../features/plans/api/plans-api';
import { PlanSection } from '../../features/plans/components/plan-section';
import { isConsumerAccount } from '../../components/ui/tax-inclusive-price';

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

/** /billing composes invoices and budgets: this month so far, payment method, budget and the invoices. */
export function BillingPage() {
  const current = useCurrentCharges();
  const budget = useBudget();
  const plan = usePlanState();
  // The same query PaymentSummary reads (one request): the page waits for it too, below.
  const account = useBillingAccount();
  // The sections above the fold (this month, payment method, budget) grow from a loading line to
  // their content at different moments, each pushing the ones below down (Lighthouse measured a
  // CLS of 0.09–0.20 on a phone). Until their answers are all in, one loading block stands in for
  // the page; the sections (mounted meanwhile, so the invoices load too) then appear together.
  const settled = !current.isPending && !budget.isPending && !plan.isPending && !account.isPending;
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
      {settled ? null : <LoadingBlock label="請求情報を読み込み中..." />}
      <div className={settled ? 'space-y-8' : 'hidden'}>
        <Section id="current-heading" title="今月のご利用(見込み)">
          {current.isPending ? (
            <LoadingBlock />
          ) : current.isError ? (
            <ErrorBlock message={getErrorMessage(current.error, BILLING_FETCH_FAILED)} onRetry={() => void current.refetch()} />
          ) : (
            <CurrentChargesTable data={current.data} taxIncludedFirst={isConsumerAccount(plan.data?.account_type)} />
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
        <Section id="plan-heading" title="プランの変更・解約">
          <PlanSection />
        </Section>
      </div>
    </div>
  );
}
