import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import { AdminTransfersPage } from './pages/admin-transfers-page';

const pending = (n: number): PendingTransfer => ({
  invoice_id: `i${n}`,
  invoice_number: `POI-202611-00000${n}`,
  customer_name: `テスト商事 ${n}`,
  customer_kana: null,
  customer_number: `100000${n}`,
  total: 11000,
  paid: 0,
  remaining: 11000,
  due_date: '2026-12-31',
  days_overdue: 0,
  status: 'issued',
});

// The list as the server answers it: a booked invoice leaves it.
let rows: PendingTransfer[] = [];
const confirm = vi.fn(async () => {
  rows = rows.slice(1);
});
vi.mock('./api/admin-transfers-api', () => ({
  usePendingTransfers: () => ({ isPending: false, isError: false, data: { transfers: rows, total: rows.length } }),
  useConfirmTransfer: () => ({ mutateAsync: confirm, isPending: false }),
  proposeStatementMatches: vi.fn(),
}));

const renderPage = () =>
  render(
    <MemoryRouter initialEntries={['/admin/transfers']}>
      <AdminTransfersPage />
    </MemoryRouter>,
  );

async function book(invoiceNumber: string) {
  await userEvent.click(screen.getByRole('button', { name: `${invoiceNumber} の入金を確認` }));
  const dialog = screen.getByRole('dialog');
  await userEvent.type(within(dialog).getByLabelText(/振込名義/), 'テストショウジ');
  await userEvent.click(within(dialog).getByRole('button', { name: '入金を記録する' }));
  await vi.waitFor(() => expect(screen.queryByRole('dialog')).toBeNull(), { timeout: 5_000 });
}

describe('focus after recording a transfer', () => {
  it('goes to the next row’s 「入金を確認」, and to the page heading once the list is empty, never to <body>', async () => {
    rows = [pending(1), pending(2)];
    renderPage();
    await book('POI-202611-000001');
    expect(confirm).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'POI-202611-000002 の入金を確認' })), { timeout: 5_000 });

    await book('POI-202611-000002');
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: '振込確認' })), { timeout: 5_000 });
    expect(screen.getByText('入金待ちの請求書はありません')).toBeInTheDocument();
  }, 30_000);
});
