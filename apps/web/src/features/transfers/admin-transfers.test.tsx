import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import type { StatementProposal } from '@poi/shared/schemas/transfers';
import { transferDifference } from './components/transfer-difference';
import { StatementProposals } from './pages/admin-transfers-page';

const transfer: PendingTransfer = {
  invoice_id: 'i1',
  invoice_number: 'POI-202611-000001',
  customer_name: '山田 太郎',
  customer_kana: null,
  customer_number: '1000001',
  total: 11000,
  paid: 0,
  remaining: 11000,
  due_date: '2026-12-31',
  days_overdue: 0,
  status: 'issued',
};

describe('transfer difference', () => {
  it('tells exact, short within the ¥1,000 fee tolerance, short beyond it, over and invalid amounts apart', () => {
    expect(transferDifference(11000, '11000')).toEqual({ kind: 'exact' });
    expect(transferDifference(11000, '10000')).toEqual({ kind: 'short_fee', shortBy: 1000 });
    expect(transferDifference(11000, '9999')).toEqual({ kind: 'short', shortBy: 1001 });
    expect(transferDifference(11000, '11500')).toEqual({ kind: 'over', overBy: 500 });
    for (const bad of ['', '0', '-5', '12.5', 'abc']) expect(transferDifference(11000, bad).kind).toBe('invalid');
  });
});

describe('statement proposals', () => {
  it('shows each line with its match and lets the admin confirm only lines with an invoice', async () => {
    const proposals: StatementProposal[] = [
      { line: 2, date: '2026-12-01', amount: 11000, payer_name: '1000001 ヤマダ', customer_number: '1000001', match: 'exact', invoice: transfer, difference: 0, reason: 'お客様番号と金額が一致します' },
      { line: 3, date: '2026-12-02', amount: 123, payer_name: 'タナカ', customer_number: null, match: 'none', invoice: null, difference: null, reason: 'お客様番号がなく、金額の一致する請求書もありません' },
    ];
    const onConfirm = vi.fn();
    render(<StatementProposals proposals={proposals} onConfirm={onConfirm} />);
    const rows = within(screen.getByRole('table', { name: '入金明細の消し込み候補' })).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('お客様番号・金額が一致');
    expect(rows[2]).toHaveTextContent('金額の一致する請求書もありません');
    expect(within(rows[2]!).queryByRole('button')).toBeNull();
    await userEvent.click(within(rows[1]!).getByRole('button', { name: /2行目を POI-202611-000001/ }));
    expect(onConfirm).toHaveBeenCalledWith(transfer, proposals[0]);
  });
});
