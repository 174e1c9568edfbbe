import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { creditNoteBodySchema } from '@poi/shared/schemas/invoices';
import { issueCreditNote, voidInvoice, writeOffInvoice } from '../../lib/admin-invoices-api';
import { adminCorporateKeys, adminRevenueKeys, adminTransfersKeys, adminUsersKeys } from '../../lib/admin-query-keys';
import { Button } from '../ui/button';
import { FormField, inputClass } from '../ui/form-field';
import { yen } from '../ui/billing-labels';
import { ReasonDialog } from './reason-dialog';

type Action = 'void' | 'credit_note' | 'write_off';

interface AdjustableInvoice {
  id: string;
  number: string | null;
  status: string;
  total: number;
}

const BUTTONS: Array<{ action: Action; label: string; when: string[] }> = [
  { action: 'void', label: '無効にする', when: ['issued', 'overdue'] },
  { action: 'credit_note', label: '返還請求書を発行', when: ['issued', 'partially_paid', 'paid', 'overdue'] },
  { action: 'write_off', label: '貸倒れ処理', when: ['overdue'] },
];

/** The amount field's message, from the shared request schema (as the server checks it). */
function amountError(value: string): string | undefined {
  const parsed = creditNoteBodySchema.shape.amount_yen.safeParse(value.trim() === '' ? undefined : Number(value.replace(/[,，]/g, '')));
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/**
 * An administrator's adjustments of one issued invoice, each behind a dialog with a required
 * reason: 無効にする (nothing paid yet), 返還請求書を発行 (a credit note, tax included) and
 * 貸倒れ処理 (overdue only). The server has the last word (its refusal shows in the dialog);
 * focus returns to the button that opened the dialog.
 */
/** A submission id, where the browser can make one (crypto.randomUUID needs a secure context). */
const newRequestId = (): string | undefined => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : undefined);

export function InvoiceActions({ invoice }: { invoice: AdjustableInvoice }) {
  const client = useQueryClient();
  const [open, setOpen] = useState<Action | null>(null);
  const [amount, setAmount] = useState('');
  const [amountTouched, setAmountTouched] = useState(false);
  // One id per credit note submitted: a resubmit of the same amount (a lost answer, a double
  // click) gets the note already issued instead of a second one; a new amount is a new request.
  const [requestId, setRequestId] = useState(newRequestId);
  const label = invoice.number ?? '';
  const shown = BUTTONS.filter((b) => b.when.includes(invoice.status));
  if (!shown.length) return null;

  const refresh = () => {
    void client.invalidateQueries({ queryKey: adminUsersKeys.details() });
    void client.invalidateQueries({ queryKey: adminCorporateKeys.details() });
    void client.invalidateQueries({ queryKey: adminTransfersKeys.all });
    void client.invalidateQueries({ queryKey: adminRevenueKeys.all });
  };
  const close = () => {
    setOpen(null);
    setAmount('');
    setAmountTouched(false);
    setRequestId(newRequestId());
  };
  const amountInvalid = amountTouched ? amountError(amount) : undefined;
  const amountId = `credit-amount-${invoice.id}`;

  return (
    <span className="ml-2 inline-flex flex-wrap gap-1 align-middle">
      {shown.map((b) => (
        <Button key={b.action} variant={b.action === 'credit_note' ? 'secondary' : 'ghost'} className="!min-h-0 !px-2 !py-1 text-xs" aria-label={`${label} を${b.label}`} onClick={() => setOpen(b.action)}>
          {b.label}
        </Button>
      ))}
      {open === 'void' ? (
        <ReasonDialog
          title={`請求書 ${label} を無効にする`}
          description={<p>入金のない請求書を無効にします。請求書番号は再利用されず、充当済みのクレジットはお客様の残高に戻ります。PDFには「無効」と表示されます。</p>}
          submitLabel="無効にする"
          onSubmit={(reason) => voidInvoice(invoice.id, reason).then(refresh)}
          onClose={close}
        />
      ) : null}
      {open === 'write_off' ? (
        <ReasonDialog
          title={`請求書 ${label} を貸倒れ処理`}
          description={<p>支払期限を過ぎた請求書を回収不能(貸倒れ)にします。カードの再請求は止まり、未回収・期限超過の集計から外れます。</p>}
          submitLabel="貸倒れ処理"
          onSubmit={(reason) => writeOffInvoice(invoice.id, reason).then(refresh)}
          onClose={close}
        />
      ) : null}
      {open === 'credit_note' ? (
        <ReasonDialog
          title={`請求書 ${label} の返還請求書を発行`}
          description={
            <p>
              返還額(税込)の適格返還請求書を発行します。未払分から差し引き、超えた分はお客様のクレジット残高になります。返還額の合計は請求金額 {yen(invoice.total)} までです。
            </p>
          }
          submitLabel="発行する"
          validate={() => {
            setAmountTouched(true);
            return !amountError(amount);
          }}
          onSubmit={(reason) => issueCreditNote(invoice.id, { amount_yen: Number(amount.replace(/[,，]/g, '')), reason, ...(requestId ? { request_id: requestId } : {}) }).then(refresh)}
          onClose={close}
        >
          <FormField id={amountId} label="返還額(税込・円)" required error={amountInvalid}>
            <input id={amountId} inputMode="numeric" autoComplete="off" className={inputClass} value={amount} onChange={(e) => {
                setAmount(e.target.value);
                setRequestId(newRequestId());
              }} onBlur={() => setAmountTouched(true)} />
          </FormField>
        </ReasonDialog>
      ) : null}
    </span>
  );
}
