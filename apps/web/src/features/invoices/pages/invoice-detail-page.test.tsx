import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { InvoiceDetail } from '@poi/shared/schemas/invoices';
import type * as InvoicesApi from '../api/invoices-api';
import { InvoiceDetailPage } from './invoice-detail-page';

/*
 * 「今すぐ支払う」 on the invoice page: shown for a card invoice with something owed when card
 * payments are available; after returning from Checkout (?paid=1) the page polls and says
 * 「お支払いを確認しています…」 until the payment is booked, then that it is paid.
 */

const payInvoice = vi.fn(async (_id: string) => undefined);
const useInvoice = vi.fn();
let invoice: InvoiceDetail;
let cardPaymentsAvailable = true;

vi.mock('../api/invoices-api', async (original) => ({
  ...(await original<typeof InvoicesApi>()),
  payInvoice: (id: string) => payInvoice(id),
  useInvoice: (id: string, poll?: boolean) => {
    useInvoice(id, poll);
    return { isPending: false, isError: false, data: invoice };
  },
  useBillingAccount: () => ({ isPending: false, isError: false, data: { card_payments_available: cardPaymentsAvailable } }),
}));

function invoiceOf(over: Partial<InvoiceDetail> = {}): InvoiceDetail {
  return {
    id: 'inv-1',
    number: 'POI-202611-000001',
    year_month: '2026-10',
    status: 'overdue',
    period_start: '2026-10-01',
    period_end: '2026-10-31',
    issue_date: '2026-11-01',
    due_date: '2026-11-01',
    subtotal: 12345,
    tax: 1234,
    total: 13579,
    credit_applied: 0,
    paid: 0,
    credited: 0,
    remaining: 13579,
    payment_method: 'card',
    addressee: 'テスト 太郎',
    last_payment_error: 'カードが拒否されました。カード会社にお問い合わせいただくか、別のカードをご登録ください。',
    lines: [],
    payments: [],
    issuer: { name: 'POI Cloud株式会社', registration_number: null, address: null },
    recipient: { addressee: 'テスト 太郎', honorific: '様', customer_number: '1234567', postal_code: null, address: null },
    bank_transfer: null,
    pay_now_url: null,
    void_reason: null,
    voided_at: null,
    write_off_reason: null,
    written_off_at: null,
    credit_notes: [],
    ...over,
  } as InvoiceDetail;
}

const renderAt = (url: string) =>
  render(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path="/billing/invoices/:id" element={<InvoiceDetailPage />} />
      </Routes>
    </MemoryRouter>,
  );

describe('/billing/invoices/:id — 「今すぐ支払う」', () => {
  beforeEach(() => {
    payInvoice.mockClear();
    useInvoice.mockClear();
    cardPaymentsAvailable = true;
    invoice = invoiceOf();
  });

  it('an overdue card invoice: the button posts for this invoice; no polling before paying', async () => {
    renderAt('/billing/invoices/inv-1');
    expect(screen.getByText('この請求書はお支払い期限を過ぎています。未払い残高 ¥13,579 をカードでお支払いいただけます。')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '今すぐ支払う' }));
    expect(payInvoice).toHaveBeenCalledWith('inv-1');
    expect(screen.getByRole('button', { name: '今すぐ支払う' })).toBeDisabled();
    expect(useInvoice).toHaveBeenLastCalledWith('inv-1', false);
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
  });

  it('back from Checkout while the webhook has not booked it: polls and says so, without the button', () => {
    renderAt('/billing/invoices/inv-1?paid=1');
    expect(useInvoice).toHaveBeenLastCalledWith('inv-1', true);
    expect(screen.getByRole('status')).toHaveTextContent('お支払いを確認しています…');
    expect(screen.queryByRole('button', { name: '今すぐ支払う' })).toBeNull();
  });

  it('back from Checkout once booked: paid, no button', () => {
    invoice = invoiceOf({ status: 'paid', paid: 13579, remaining: 0, last_payment_error: null });
    renderAt('/billing/invoices/inv-1?paid=1');
    expect(screen.getByRole('status')).toHaveTextContent('お支払いが完了しました。ありがとうございます。');
    expect(screen.queryByRole('button', { name: '今すぐ支払う' })).toBeNull();
  });

  it('no button without card payments, for a bank-transfer invoice, or when nothing is owed', () => {
    cardPaymentsAvailable = false;
    const { unmount } = renderAt('/billing/invoices/inv-1');
    expect(screen.queryByRole('button', { name: '今すぐ支払う' })).toBeNull();
    expect(screen.getByText('現在カード決済をご利用いただけません。時間をおいてお試しください。')).toBeInTheDocument();
    unmount();

    cardPaymentsAvailable = true;
    for (const over of [{ payment_method: 'bank_transfer' as const }, { status: 'paid' as const, remaining: 0 }, { status: 'void' as const }]) {
      invoice = invoiceOf(over);
      const r = renderAt('/billing/invoices/inv-1');
      expect(screen.queryByRole('button', { name: '今すぐ支払う' })).toBeNull();
      r.unmount();
    }
  });
});
