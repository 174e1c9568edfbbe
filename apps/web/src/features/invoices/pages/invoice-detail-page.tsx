import { useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ArrowLeft, CreditCard, Download } from 'lucide-react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage, statusOf } from '../../../lib/api-client';
import { downloadCreditNotePdf, downloadInvoicePdf, downloadReceiptPdf, isPayableByCard, payInvoice, useBillingAccount, useInvoice } from '../api/invoices-api';
import { InvoiceStatusBadge, PAYMENT_LABELS, PAYMENT_METHOD_LABELS, slashDate, yen } from '../../../components/ui/billing-labels';
import { ChargeLinesTable } from '../components/charge-lines-table';
import { TransferInstructions } from '../components/transfer-instructions';
import { CreditNoteList, InvoiceAdjustmentNotice } from '../components/invoice-adjustments';

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="text-gray-700">{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** /billing/invoices/:id — one invoice with its lines, tax, payments, PDF and receipts. */
export function InvoiceDetailPage() {
  const { id = '' } = useParams();
  // Back from Stripe Checkout (success_url …?paid=1): fetched again until the webhook booked the payment.
  const returned = useSearchParams()[0].get('paid') === '1';
  const invoice = useInvoice(id, returned);
  const account = useBillingAccount();
  const [busy, setBusy] = useState<string>();
  const [waitedOut, setWaitedOut] = useState(false);
  useEffect(() => {
    if (!returned) return;
    const timer = setTimeout(() => setWaitedOut(true), 60_000);
    return () => clearTimeout(timer);
  }, [returned]);
  const pay = () => {
    setBusy('pay');
    // On success the browser leaves for the hosted page; busy stays set until then.
    payInvoice(id).catch((err: unknown) => {
      toast.error(getErrorMessage(err, 'お支払いの手続きを開始できませんでした'));
      setBusy(undefined);
    });
  };
  const download = (key: string, run: () => Promise<void>) => {
    setBusy(key);
    run()
      .catch((err: unknown) => toast.error(getErrorMessage(err, 'ダウンロードに失敗しました')))
      .finally(() => setBusy(undefined));
  };
  const back = (
    <Link to="/billing" className="inline-flex items-center gap-1 text-sm font-medium text-blue-800 underline">
      <ArrowLeft className="h-4 w-4" aria-hidden="true" />
      請求・お支払いへ戻る
    </Link>
  );

  if (invoice.isPending) return <LoadingBlock />;
  if (invoice.isError) {
    const message = statusOf(invoice.error) === 404 || statusOf(invoice.error) === 400 ? '請求書が見つかりません' : getErrorMessage(invoice.error, '請求書の取得に失敗しました');
    return (
      <div className="space-y-4">
        <h1 className="text-2xl font-bold text-gray-900">請求書</h1>
        <ErrorBlock message={message} />
        {back}
      </div>
    );
  }
  const inv = invoice.data;
  const payable = isPayableByCard(inv);
  const confirming = returned && payable && !waitedOut;
  const cardAvailable = account.data?.card_payments_available ?? false;
  return (
    <div className="space-y-6">
      {back}
      <PageHeader
        title={`請求書 ${inv.number ?? ''}`}
        actions={
          <Button variant="secondary" disabled={busy === 'pdf'} onClick={() => download('pdf', () => downloadInvoicePdf(inv.id, inv.number))}>
            <Download className="h-4 w-4" aria-hidden="true" />
            請求書PDF
          </Button>
        }
      />
      <div role="status" className="empty:hidden">
        {confirming ? (
          <p className="rounded-lg border border-blue-200 bg-blue-50 p-3 text-sm text-blue-950">お支払いを確認しています…</p>
        ) : returned && payable ? (
          <p className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">お支払いの確認に時間がかかっています。しばらくしてからページを再読み込みしてください。</p>
        ) : returned && inv.status === 'paid' ? (
          <p className="rounded-lg border border-green-200 bg-green-50 p-3 text-sm text-green-900">お支払いが完了しました。ありがとうございます。</p>
        ) : null}
      </div>
      {payable && !confirming ? (
        <section aria-labelledby="pay-heading" className="space-y-2 rounded-lg border border-gray-200 bg-white p-4 text-sm">
          <h2 id="pay-heading" className="text-lg font-semibold text-gray-900">
            お支払い
          </h2>
          <p className="text-gray-800">
            {inv.status === 'overdue' ? 'この請求書はお支払い期限を過ぎています。' : ''}未払い残高 {yen(inv.remaining)} をカードでお支払いいただけます。
          </p>
          {cardAvailable ? (
            <Button onClick={pay} disabled={busy === 'pay'}>
              <CreditCard className="h-4 w-4" aria-hidden="true" />
              今すぐ支払う
            </Button>
          ) : account.data ? (
            <p className="text-gray-800">現在カード決済をご利用いただけません。時間をおいてお試しください。</p>
          ) : null}
          <p className="text-gray-700">
            登録済みのカードを変更する場合は
            <Link to="/payment-method" className="font-medium text-blue-800 underline">
              お支払い方法
            </Link>
            から新しいカードをご登録ください。登録したカードで未払いの請求書を直ちに決済します。
          </p>
        </section>
      ) : null}
      {inv.last_payment_error && inv.status !== 'paid' ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          {inv.last_payment_error}
        </p>
      ) : null}
      <InvoiceAdjustmentNotice invoice={inv} />
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-lg border border-gray-200 bg-white p-4 text-sm">
        <Row label="状態">
          <InvoiceStatusBadge status={inv.status} fullyCredited={inv.credited > 0 && inv.remaining === 0} />
        </Row>
        <Row label="発行日">{slashDate(inv.issue_date)}</Row>
        <Row label="対象期間">
          {slashDate(inv.period_start)} 〜 {slashDate(inv.period_end)}
        </Row>
        <Row label="お支払期限">{slashDate(inv.due_date)}</Row>
        <Row label="お支払い方法">{PAYMENT_METHOD_LABELS[inv.payment_method]}</Row>
        <Row label="宛名">
          {inv.recipient.addressee} {inv.recipient.honorific}(お客様番号 {inv.recipient.customer_number})
        </Row>
        <Row label="発行者">
          {inv.issuer.name}
          {inv.issuer.registration_number ? `(登録番号 ${inv.issuer.registration_number})` : ''}
        </Row>
      </dl>
      <ChargeLinesTable
        caption="明細"
        lines={inv.lines.map((l, i) => ({ key: String(i), description: l.description, quantity: l.quantity, unitPrice: l.unit_price, amount: l.amount }))}
        totals={[
          { label: '小計', value: yen(inv.subtotal) },
          { label: `10%対象 ${yen(inv.subtotal)} 消費税`, value: yen(inv.tax) },
          { label: '合計(税込)', value: yen(inv.total), strong: true },
          ...(inv.credit_applied > 0 ? [{ label: 'クレジット充当', value: `−${yen(inv.credit_applied)}` }] : []),
          { label: 'お支払い済み', value: yen(inv.paid) },
          ...(inv.credited > 0 ? [{ label: '返還(返還請求書)', value: `−${yen(inv.credited)}` }] : []),
          { label: '未払い残高', value: yen(inv.remaining) },
        ]}
      />
      {inv.bank_transfer && inv.remaining > 0 ? <TransferInstructions data={inv.bank_transfer} dueDate={inv.due_date} /> : null}
      <section aria-labelledby="payments-heading" className="space-y-2">
        <h2 id="payments-heading" className="text-lg font-semibold text-gray-900">
          お支払い履歴
        </h2>
        {inv.payments.length === 0 ? (
          <p className="text-sm text-gray-700">お支払いはまだありません</p>
        ) : (
          <ul className="divide-y divide-gray-100 rounded-lg border border-gray-200 bg-white text-sm">
            {inv.payments.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
                <span>
                  {slashDate(p.received_on)} {PAYMENT_LABELS[p.method]} {yen(p.amount)}
                  {p.fee > 0 ? `(振込手数料 ${yen(p.fee)} をご負担分として処理)` : ''}・領収書番号 {p.receipt_number}
                </span>
                <Button variant="secondary" disabled={busy === p.id} onClick={() => download(p.id, () => downloadReceiptPdf(p.id, p.receipt_number))}>
                  <Download className="h-4 w-4" aria-hidden="true" />
                  領収書PDF
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <CreditNoteList invoice={inv} busy={busy} onDownload={(key, path, number) => download(key, () => downloadCreditNotePdf(path, number))} />
    </div>
  );
}
