import { useId, useRef, useState, type FormEvent } from 'react';
import { Upload } from 'lucide-react';
import { toast } from 'react-toastify';
import { TRANSFER_FEE_TOLERANCE_YEN, type PendingTransfer, type StatementProposal } from '@poi/shared/schemas/transfers';
import { Button } from '../../../components/ui/button';
import { FormField, inputClass } from '../../../components/ui/form-field';
import { FormModal } from '../../../components/ui/form-modal';
import { PageHeader } from '../../../components/ui/page-header';
import { EmptyBlock, ErrorBlock, LoadingBlock } from '../../../components/ui/state-blocks';
import { DataTable } from '../../../components/ui/data-table';
import { getFieldErrorMessage, getErrorMessage } from '../../../lib/api-client';
import { INVOICE_STATUS_LABELS, slashDate, yen } from '../../../components/ui/billing-labels';
import { AdminListPage, CsvButton } from '../../../components/admin/admin-list';
import { proposeStatementMatches, useConfirmTransfer, usePendingTransfers } from '../api/admin-transfers-api';
import { transferDifference } from '../components/transfer-difference';
import { useUrlParams } from '../../../lib/use-url-params';
import { focusAfterRemoval } from '../../../lib/focus-after-removal';

const PAGE_SIZE = 50;
const DEFAULTS = { page: '1' };
const todayJst = () => new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);

/** /admin/transfers: invoices waiting for a bank transfer, and booking what arrived. */
export function AdminTransfersPage() {
  const [view, update] = useUrlParams(DEFAULTS);
  const page = Number(view.page);
  const list = usePendingTransfers({ limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) });
  const [confirming, setConfirming] = useState<{ transfer: PendingTransfer; proposal?: StatementProposal } | null>(null);
  const [proposals, setProposals] = useState<StatementProposal[] | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  // The button that opened the dialog: once the transfer is booked its row may leave the list.
  const trigger = useRef<Element | null>(null);
  const openConfirm = (next: { transfer: PendingTransfer; proposal?: StatementProposal }) => {
    trigger.current = document.activeElement;
    setConfirming(next);
  };

  const uploadStatement = async (file: File | undefined) => {
    if (!file) return;
    setUploadError(null);
    if (file.size > 1024 * 1024) {
      setUploadError('入金明細のファイルは1MB以下にしてください');
      return;
    }
    try {
      setProposals(await proposeStatementMatches(file));
    } catch (err) {
      setUploadError(getErrorMessage(err, '入金明細を読み取れませんでした'));
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  let body;
  if (list.isPending) body = <LoadingBlock />;
  else if (list.isError) body = <ErrorBlock message={getErrorMessage(list.error, '入金待ちの一覧の取得に失敗しました')} onRetry={() => void list.refetch()} />;
  else if (list.data.total === 0) body = <EmptyBlock message="入金待ちの請求書はありません" />;
  else
    body = (
      <AdminListPage total={list.data.total} totalLabel="入金待ち" page={page} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })}>
        <DataTable<PendingTransfer>
          caption="入金待ちの銀行振込"
          rows={list.data.transfers}
          rowKey={(t) => t.invoice_id}
          columns={[
            { header: '請求書番号', cell: (t) => t.invoice_number },
            {
              header: 'お客様',
              // Long company names wrap, so the row's action stays in view at 1280 px.
              className: 'min-w-40 max-w-64 px-3 py-2 text-gray-900',
              cell: (t) => (
                <>
                  <span className="block">{t.customer_name}</span>
                  {t.customer_kana ? <span className="block text-xs text-gray-700">{t.customer_kana}</span> : null}
                </>
              ),
            },
            { header: 'お客様番号', cell: (t) => t.customer_number },
            { header: '請求額', cell: (t) => yen(t.total), align: 'right' },
            { header: '入金済', cell: (t) => yen(t.paid), align: 'right' },
            { header: '残額', cell: (t) => yen(t.remaining), align: 'right' },
            { header: '支払期限', cell: (t) => slashDate(t.due_date) },
            { header: '超過日数', cell: (t) => (t.days_overdue > 0 ? <span className="font-medium text-red-800">{t.days_overdue}日</span> : '—'), align: 'right' },
            { header: '状態', cell: (t) => INVOICE_STATUS_LABELS[t.status] },
            {
              header: '操作',
              stickyEnd: true,
              cell: (t) => (
                <Button variant="secondary" onClick={() => openConfirm({ transfer: t })} aria-label={`${t.invoice_number} の入金を確認`}>
                  入金を確認
                </Button>
              ),
            },
          ]}
        />
      </AdminListPage>
    );

  return (
    <div>
      <PageHeader
        title="振込確認"
        description="銀行の入金明細と照らし合わせ、1件ずつ入金を記録します。記録すると領収書がメールで送られます。"
        actions={<CsvButton url="/console/v1/admin/transfers/pending.csv" filename="pending-transfers.csv" />}
      />
      <section aria-labelledby="statement-h" className="mb-6 rounded-lg border border-gray-200 bg-white p-4">
        <h2 id="statement-h" className="font-semibold text-gray-900">
          入金明細から消し込み候補を探す
        </h2>
        <p className="mt-1 text-sm text-gray-700">
          銀行の入金明細CSV(日付・金額・振込依頼人名、UTF-8 または Shift_JIS、1MBまで)を読み込むと、振込依頼人名の前のお客様番号と金額から候補を提案します。記録はされません。
        </p>
        <label className="mt-3 inline-flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-gray-400 bg-white px-3 py-2 text-sm font-medium text-gray-900 hover:bg-gray-50 focus-within:ring-2 focus-within:ring-blue-600">
          <Upload className="h-4 w-4" aria-hidden /> 入金明細CSVを選ぶ
          <input ref={fileInput} type="file" accept=".csv,text/csv" className="sr-only" onChange={(e) => void uploadStatement(e.target.files?.[0])} />
        </label>
        {uploadError ? (
          <p role="alert" className="mt-2 text-sm text-red-800">
            {uploadError}
          </p>
        ) : null}
        {proposals ? <StatementProposals proposals={proposals} onConfirm={(transfer, proposal) => openConfirm({ transfer, proposal })} /> : null}
      </section>
      {body}
      {confirming ? (
        <ConfirmTransferDialog
          transfer={confirming.transfer}
          proposal={confirming.proposal}
          onClose={() => setConfirming(null)}
          onDone={() => {
            // Focus goes to the next row's action, else the list's heading, rather than to <body>.
            const proposal = confirming.proposal;
            focusAfterRemoval(trigger.current, () => (proposal ? document.getElementById('statement-h') : document.querySelector<HTMLElement>('h1')));
            if (proposal) setProposals((list) => list?.filter((p) => p !== proposal) ?? null);
          }}
        />
      ) : null}
    </div>
  );
}

const MATCH_LABELS: Record<StatementProposal['match'], string> = {
  exact: 'お客様番号・金額が一致',
  customer_number: 'お客様番号が一致(金額が異なる)',
  amount: '金額のみ一致',
  none: '候補なし',
};

/** The proposals of an uploaded statement: each line and the invoice it may pay, confirmed one by one. */
export function StatementProposals({ proposals, onConfirm }: { proposals: StatementProposal[]; onConfirm: (t: PendingTransfer, p: StatementProposal) => void }) {
  if (!proposals.length) return <p className="mt-3 text-sm text-gray-700">すべての候補を処理しました。</p>;
  return (
    <div className="mt-3">
      <DataTable<StatementProposal>
        caption="入金明細の消し込み候補"
        rows={proposals}
        rowKey={(p) => String(p.line)}
        columns={[
          { header: '行', cell: (p) => p.line, align: 'right' },
          { header: '日付', cell: (p) => slashDate(p.date) },
          { header: '金額', cell: (p) => yen(p.amount), align: 'right' },
          { header: '振込依頼人名', cell: (p) => p.payer_name },
          { header: '判定', cell: (p) => <span className={p.match === 'none' ? 'text-gray-700' : 'font-medium text-gray-900'}>{MATCH_LABELS[p.match]}</span> },
          { header: '候補の請求書', className: 'min-w-48 max-w-80 px-3 py-2 text-gray-900', cell: (p) => (p.invoice ? `${p.invoice.invoice_number}(${p.invoice.customer_name}・残額 ${yen(p.invoice.remaining)})` : p.reason) },
          {
            header: '操作',
            stickyEnd: true,
            cell: (p) =>
              p.invoice ? (
                <Button variant="secondary" onClick={() => onConfirm(p.invoice!, p)} aria-label={`${p.line}行目を ${p.invoice.invoice_number} の入金として確認`}>
                  確認して記録
                </Button>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </div>
  );
}

export function ConfirmTransferDialog({ transfer, proposal, onClose, onDone }: { transfer: PendingTransfer; proposal?: StatementProposal; onClose: () => void; onDone?: () => void }) {
  const formId = useId();
  const [receivedOn, setReceivedOn] = useState(proposal?.date ?? todayJst());
  const [amount, setAmount] = useState(String(proposal?.amount ?? transfer.remaining));
  const [payer, setPayer] = useState(proposal?.payer_name ?? '');
  const [note, setNote] = useState('');
  const [asFee, setAsFee] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const act = useConfirmTransfer(transfer.invoice_id);
  const diff = transferDifference(transfer.remaining, amount);
  const payerError = touched && !payer.trim() ? '振込名義を入力してください' : undefined;
  const amountError = touched && diff.kind === 'invalid' ? '入金額は1円以上の整数で入力してください' : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!payer.trim() || diff.kind === 'invalid' || act.isPending) return;
    setError(null);
    try {
      await act.mutateAsync({
        received_on: receivedOn,
        received_amount: Number(amount),
        payer_name: payer.trim(),
        note: note.trim() || null,
        ...(diff.kind === 'short_fee' ? { book_shortfall_as_fee: asFee } : {}),
      });
      toast.success(`${transfer.invoice_number} の入金を記録しました`);
      onDone?.();
      onClose();
    } catch (err) {
      setError(getFieldErrorMessage(err, '入金の記録に失敗しました'));
    }
  };

  return (
    <FormModal title={`入金の確認: ${transfer.invoice_number}`} formId={formId} submitLabel="入金を記録する" submitting={act.isPending} error={error} onClose={onClose}>
      <form id={formId} noValidate onSubmit={(e) => void submit(e)} className="space-y-4">
        <p className="text-sm text-gray-800">
          {transfer.customer_name}(お客様番号 {transfer.customer_number})・ 残額 <strong>{yen(transfer.remaining)}</strong>
        </p>
        <FormField id={`${formId}-on`} label="入金日" required>
          <input id={`${formId}-on`} type="date" className={inputClass} value={receivedOn} onChange={(e) => setReceivedOn(e.target.value)} />
        </FormField>
        <FormField id={`${formId}-amount`} label="入金額(円)" required error={amountError}>
          <input
            id={`${formId}-amount`}
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            className={inputClass}
            value={amount}
            aria-invalid={amountError ? true : undefined}
            onChange={(e) => setAmount(e.target.value)}
          />
        </FormField>
        <div role="status" className="rounded-md bg-gray-50 p-3 text-sm text-gray-900">
          {diff.kind === 'exact' ? '残額と一致します。支払済になります。' : null}
          {diff.kind === 'over' ? `${yen(diff.overBy)} 多く入金されています。支払済とし、超過分は次回の請求に充当します。` : null}
          {diff.kind === 'short' ? `${yen(diff.shortBy)} 不足しています。一部入金として記録します。` : null}
          {diff.kind === 'short_fee' ? (
            <fieldset>
              <legend>{yen(diff.shortBy)} 不足しています({yen(TRANSFER_FEE_TOLERANCE_YEN)}以下)。</legend>
              <label className="mt-2 flex items-center gap-2">
                <input type="radio" name={`${formId}-fee`} checked={asFee} onChange={() => setAsFee(true)} /> 振込手数料として処理し、支払済にする
              </label>
              <label className="mt-1 flex items-center gap-2">
                <input type="radio" name={`${formId}-fee`} checked={!asFee} onChange={() => setAsFee(false)} /> 一部入金として記録する
              </label>
            </fieldset>
          ) : null}
          {diff.kind === 'invalid' ? '入金額を入力してください。' : null}
        </div>
        <FormField id={`${formId}-payer`} label="振込名義(カナ)" required error={payerError}>
          <input id={`${formId}-payer`} className={inputClass} value={payer} aria-invalid={payerError ? true : undefined} onChange={(e) => setPayer(e.target.value)} />
        </FormField>
        <FormField id={`${formId}-note`} label="メモ">
          <textarea id={`${formId}-note`} rows={2} className={inputClass} value={note} onChange={(e) => setNote(e.target.value)} />
        </FormField>
      </form>
    </FormModal>
  );
}
