import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ArrowLeft, Download } from 'lucide-react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/button';
import { PageHeader } from '../../../components/ui/page-header';
import { ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { getErrorMessage, statusOf } from '../../../lib/api-client';
import { downloadInvoicePdf, downloadReceiptPdf, useInvoice } from '../api/invoices-api';
import { InvoiceStatusBadge, PAYMENT_LABELS, PAYMENT_METHOD_LABELS, slashDate, yen } from '../../../components/ui/billing-labels';
import { ChargeLinesTable } from '../components/charge-lines-table';
import { TransferInstructions } from '../components/transfer-instructions';

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
  const invoice = useInvoice(id);
  const [busy, setBusy] = useState<string>();
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
      {inv.pay_now_url ? (
        <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
          <p>カード会社の本人認証が必要です。</p>
          <a href={inv.pay_now_url} className="mt-2 inline-block font-semibold text-blue-800 underline">
            カード認証を行ってお支払い
          </a>
        </div>
      ) : null}
      {inv.last_payment_error && inv.status !== 'paid' ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          {inv.last_payment_error}
        </p>
      ) : null}
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-lg border border-gray-200 bg-white p-4 text-sm">
        <Row label="状態">
          <InvoiceStatusBadge status={inv.status} />
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
    </div>
  );
}
