import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { BudgetForm } from './budget-form';

const mutate = vi.fn();
vi.mock('../api/budgets-api', () => ({ useSaveBudget: () => ({ mutate, isPending: false }) }));

describe('BudgetForm', () => {
  it('checks the limit with the shared schema, shows the alerts sent and saves or removes the budget', async () => {
    const { rerender } = render(<BudgetForm budget={{ monthly_limit: null, hard_stop: false, spent_this_month: 0, alerts_sent: [] }} />);
    const input = screen.getByLabelText('月の予算(円、税込)');
    await userEvent.type(input, '0');
    await userEvent.click(screen.getByRole('button', { name: '予算を保存' }));
    expect(await screen.findByText('予算は1〜100,000,000円の整数で入力してください')).toBeInTheDocument();
    expect(mutate).not.toHaveBeenCalled();
    await userEvent.clear(input);
    await userEvent.type(input, '5000');
    await userEvent.click(screen.getByLabelText(/公開APIの検索を停止する/));
    await userEvent.click(screen.getByRole('button', { name: '予算を保存' }));
    expect(mutate).toHaveBeenCalledWith({ monthly_limit: 5000, hard_stop: true }, expect.anything());

    rerender(<BudgetForm key="saved" budget={{ monthly_limit: 5000, hard_stop: true, spent_this_month: 4100, alerts_sent: [50, 80] }} />);
    expect(screen.getByText(/¥4,100 \/ 予算 ¥5,000\(82%\)/)).toBeInTheDocument();
    expect(screen.getByText('50%: 通知済')).toBeInTheDocument();
    expect(screen.getByText('100%: 未通知')).toBeInTheDocument();
    // The rule the server applies: a changed budget never re-sends a threshold mailed this month.
    expect(screen.getByText(/月の途中で予算を変更しても、今月すでに通知した段階のメールは再送されません/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '予算を削除' }));
    expect(mutate).toHaveBeenLastCalledWith({ monthly_limit: null, hard_stop: false }, expect.anything());
  });
});
