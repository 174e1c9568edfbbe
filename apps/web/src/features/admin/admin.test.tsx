import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import type { StatementProposal } from '@poi/shared/schemas/transfers';
import { ReasonDialog, reasonError } from './components/reason-dialog';
import { transferDifference } from './components/transfer-difference';
import { validatePricingForm } from './pages/admin-pricing-page';
import { StatementProposals } from './pages/admin-transfers-page';
import { readUrlParams, writeUrlParams } from './use-url-params';

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

describe('admin list views in the URL', () => {
  const defaults = { q: '', status: '', sort: 'created_at', page: '1' };
  it('reads known values, falls back on unknown ones, and leaves defaults out of the URL', () => {
    const view = readUrlParams(new URLSearchParams('q=%E4%BD%90%E8%97%A4&status=frozen&sort=email&page=0'), defaults, { status: ['', 'active'], sort: ['created_at', 'email'] });
    expect(view).toEqual({ q: '佐藤', status: '', sort: 'email', page: '1' });
    expect(writeUrlParams({ ...view, page: '3' }, defaults).toString()).toBe('q=%E4%BD%90%E8%97%A4&sort=email&page=3');
    expect(writeUrlParams(defaults, defaults).toString()).toBe('');
  });
});

describe('transfer difference', () => {
  it('tells exact, short within the ¥1,000 fee tolerance, short beyond it, over and invalid amounts apart', () => {
    expect(transferDifference(11000, '11000')).toEqual({ kind: 'exact' });
    expect(transferDifference(11000, '10000')).toEqual({ kind: 'short_fee', shortBy: 1000 });
    expect(transferDifference(11000, '9999')).toEqual({ kind: 'short', shortBy: 1001 });
    expect(transferDifference(11000, '11500')).toEqual({ kind: 'over', overBy: 500 });
    for (const bad of ['', '0', '-5', '12.5', 'abc']) expect(transferDifference(11000, bad).kind).toBe('invalid');
  });
});

describe('reason dialog', () => {
  it('requires a reason of at most 500 characters before it calls the server, then sends it trimmed', async () => {
    expect(reasonError('   ')).toBe('理由を入力してください');
    expect(reasonError('x'.repeat(501))).toBe('理由は500文字以内で入力してください');
    const onSubmit = vi.fn().mockResolvedValue(undefined);
    const onClose = vi.fn();
    render(<ReasonDialog title="ユーザーを停止" description="停止します" submitLabel="停止する" onSubmit={onSubmit} onClose={onClose} />);
    await userEvent.click(screen.getByRole('button', { name: '停止する' }));
    expect(await screen.findByText('理由を入力してください')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText(/理由/), '  規約違反  ');
    await userEvent.click(screen.getByRole('button', { name: '停止する' }));
    expect(onSubmit).toHaveBeenCalledWith('規約違反');
    expect(onClose).toHaveBeenCalled();
  });

  it('keeps the dialog open with the server refusal shown', async () => {
    const refusal = Object.assign(new Error('conflict'), { isAxiosError: true, response: { status: 409, data: { success: false, error: { code: 'CONFLICT', message: '有効な管理者が他にいないため、この操作はできません' } } } });
    const onClose = vi.fn();
    render(<ReasonDialog title="停止" description="" submitLabel="停止する" onSubmit={() => Promise.reject(refusal)} onClose={onClose} />);
    await userEvent.type(screen.getByLabelText(/理由/), 'テスト');
    await userEvent.click(screen.getByRole('button', { name: '停止する' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('有効な管理者が他にいないため、この操作はできません');
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('pricing form', () => {
  const valid = {
    account_type: 'individual',
    effective_from: '2099-01-01',
    base_fee: '0.12',
    free_searches_per_month: '2000',
    monthly_fee: '0',
    provider_share_percent: '70',
    rate_limit_per_minute: '600',
    max_api_keys: '10',
    reason: '改定',
  };
  it('checks every bound with the shared schema and names each field', () => {
    expect(validatePricingForm(valid).body).toMatchObject({ base_fee: 0.12, free_searches_per_month: 2000 });
    const { errors } = validatePricingForm({ ...valid, base_fee: '0.001', max_api_keys: '0', effective_from: '2099-02-30', reason: '' });
    expect(errors.base_fee).toContain('基本料金');
    expect(errors.max_api_keys).toContain('APIキーの上限');
    expect(errors.effective_from).toContain('適用開始日');
    expect(errors.reason).toBe('理由を入力してください');
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
