import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { issueCreditNote, voidInvoice, writeOffInvoice } from '../../lib/admin-invoices-api';
import { InvoiceActions } from './invoice-actions';

vi.mock('../../lib/admin-invoices-api', () => ({ voidInvoice: vi.fn(), issueCreditNote: vi.fn(), writeOffInvoice: vi.fn() }));

const invoice = (status: string) => ({ id: 'inv-1', number: 'POI-202611-000001', status, total: 1_100 });

function renderActions(status: string) {
  const client = new QueryClient();
  return render(
    <QueryClientProvider client={client}>
      <InvoiceActions invoice={invoice(status)} />
    </QueryClientProvider>,
  );
}

const names = () => screen.queryAllByRole('button').map((b) => b.textContent);

describe('admin invoice actions', () => {
  beforeEach(() => vi.clearAllMocks());

  it('offers what each status allows', () => {
    const { unmount } = renderActions('issued');
    expect(names()).toEqual(['無効にする', '返還請求書を発行']);
    unmount();
    renderActions('overdue');
    expect(names()).toEqual(['無効にする', '返還請求書を発行', '貸倒れ処理']);
  });

  it('offers nothing on a void or written-off invoice, only a credit note once paid', () => {
    for (const status of ['void', 'uncollectible']) {
      const { unmount } = renderActions(status);
      expect(names()).toEqual([]);
      unmount();
    }
    renderActions('paid');
    expect(names()).toEqual(['返還請求書を発行']);
  });

  it('checks the amount and the reason, each error tied to its field, then sends the credit note', async () => {
    vi.mocked(issueCreditNote).mockResolvedValue({ invoice: {} as never, credit_note: null, credit_to_account: 0 });
    renderActions('issued');
    await userEvent.click(screen.getByRole('button', { name: 'POI-202611-000001 を返還請求書を発行' }));
    await userEvent.click(screen.getByRole('button', { name: '発行する' }));
    const amount = screen.getByLabelText(/返還額/);
    expect(amount).toHaveAttribute('aria-invalid', 'true');
    expect(amount).toHaveAccessibleDescription('返還額は1円以上の整数(税込)で入力してください');
    expect(screen.getByLabelText(/理由/)).toHaveAccessibleDescription('理由を入力してください');
    await userEvent.type(amount, '0.5');
    await userEvent.click(screen.getByRole('button', { name: '発行する' }));
    expect(issueCreditNote).not.toHaveBeenCalled();
    await userEvent.clear(amount);
    await userEvent.type(amount, '1,100');
    await userEvent.type(screen.getByLabelText(/理由/), ' 障害による返金 ');
    await userEvent.click(screen.getByRole('button', { name: '発行する' }));
    expect(issueCreditNote).toHaveBeenCalledWith('inv-1', { amount_yen: 1_100, reason: '障害による返金', request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(voidInvoice).not.toHaveBeenCalled();
    expect(writeOffInvoice).not.toHaveBeenCalled();
    // Typing key by key in jsdom takes seconds on a loaded machine.
  }, 20_000);
});
