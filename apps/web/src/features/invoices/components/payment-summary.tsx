import { Link } from 'react-router';
import { PAYMENT_METHOD_LABELS, yen } from '../../../components/ui/billing-labels';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage } from '../../../lib/api-client';
import { BILLING_FETCH_FAILED, useBillingAccount } from '../api/invoices-api';
import { TransferInstructions } from './transfer-instructions';

/** The billing account as /billing shows it: payment method, card, addressee, customer number, transfer details. */
export function PaymentSummary() {
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
            <dd>{yen(a.credit)}</dd>
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
