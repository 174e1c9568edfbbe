import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { UpgradeView } from '@poi/shared/schemas/corporate';
import { useApplyCorporate, useUpgradeView } from '../api/corporate-api';
import { UpgradePage } from './upgrade-page';

vi.mock('../api/corporate-api', () => ({ useUpgradeView: vi.fn(), useApplyCorporate: vi.fn(), startCheckout: vi.fn() }));

const plan = (account_type: 'trial' | 'individual' | 'corporate', base_fee: number, monthly_fee: number) => ({
  account_type,
  base_fee,
  free_searches_per_month: 1000,
  monthly_fee,
  rate_limit_per_minute: 600,
  max_api_keys: 10,
  effective_from: '2026-01-01T00:00:00.000Z',
});

const VIEW: UpgradeView = {
  account_type: 'trial',
  plans: [plan('trial', 0, 0), plan('individual', 1.33, 980), plan('corporate', 0.05, 5000)],
  application: null,
  card_payments_available: true,
};

function renderAt(url: string) {
  vi.mocked(useUpgradeView).mockReturnValue({ isPending: false, isError: false, data: VIEW } as unknown as ReturnType<typeof useUpgradeView>);
  vi.mocked(useApplyCorporate).mockReturnValue({ mutate: vi.fn(), isPending: false } as unknown as ReturnType<typeof useApplyCorporate>);
  const router = createMemoryRouter([{ path: '/upgrade', element: <UpgradePage /> }], { initialEntries: [url] });
  render(<RouterProvider router={router} />);
  return router;
}

describe('/upgrade (総額表示 and the confirmation step in the URL)', () => {
  it('leads the individual plan card with 税込 and the corporate one with 税抜', () => {
    renderAt('/upgrade');
    const [, individual, corporate] = screen.getAllByRole('listitem');
    expect(individual).toHaveTextContent('税込 ¥1.463（税抜 ¥1.33）');
    expect(individual).toHaveTextContent('税込 ¥1,078（税抜 ¥980）');
    expect(corporate).toHaveTextContent('¥0.05(税抜)');
    expect(corporate).toHaveTextContent('¥5,000(税抜)');
    expect(corporate).not.toHaveTextContent('税込');
  });

  it('shows the individual confirmation with 税込 prices, an example, the cancellation terms, and the 特商法 link in a new tab; the step is in the URL', async () => {
    const router = renderAt('/upgrade');
    await userEvent.click(screen.getByRole('button', { name: '個人プランに申し込む' }));
    expect(router.state.location.search).toBe('?plan=individual&step=confirm');
    expect(screen.getByRole('heading', { name: 'お申し込み内容の確認' })).toBeInTheDocument();
    const prices = screen.getByTestId('individual-prices');
    expect(prices).toHaveTextContent('基本料金 1検索あたり 税込 ¥1.463（税抜 ¥1.33）');
    expect(prices).toHaveTextContent('月額料金 税込 ¥1,078（税抜 ¥980）');
    // 10,000 × ¥1.33 = ¥13,300; with tax ⌊1,330⌋ → ¥14,630.
    expect(prices).toHaveTextContent('基本料金は税抜 ¥13,300、税込 ¥14,630');
    expect(document.body).toHaveTextContent('1検索あたりの税込額は目安です');
    expect(document.body).toHaveTextContent('解約は月末に反映され、翌月1日 0:00(日本時間)からトライアルになります。当月分のご利用料金は翌月1日に請求書を発行して請求します。提供済みの検索の返金はありません。');
    const commerce = screen.getByRole('link', { name: '特定商取引法に基づく表記（新しいタブで開きます）' });
    expect(commerce).toHaveAttribute('target', '_blank');
    expect(commerce).toHaveAttribute('rel', 'noopener');

    // Agreement is asked again after leaving the step and coming back through history.
    await userEvent.click(screen.getByRole('checkbox', { name: '上記の内容に同意します' }));
    expect(screen.getByRole('button', { name: 'カードを登録して申し込む' })).toBeEnabled();
    await act(() => router.navigate(-1));
    expect(screen.getByRole('heading', { name: 'プラン比較' })).toBeInTheDocument();
    await act(() => router.navigate(1));
    expect(screen.getByRole('button', { name: 'カードを登録して申し込む' })).toBeDisabled();
  });

  it('opens on the confirmation when the URL names it (a reload)', () => {
    renderAt('/upgrade?plan=individual&step=confirm');
    expect(screen.getByRole('heading', { name: 'お申し込み内容の確認' })).toBeInTheDocument();
    expect(within(screen.getByTestId('individual-prices')).getAllByText(/税込/).length).toBeGreaterThan(0);
  });

  it('falls back to the corporate form when its confirmation is reloaded without the checked application', () => {
    renderAt('/upgrade?plan=corporate&step=confirm');
    expect(screen.getByRole('heading', { name: '法人プランのお申し込み' })).toBeInTheDocument();
  });
});

describe('/upgrade steps the account may not take', () => {
  it('shows the plans instead of the individual confirmation to an account that is already individual', () => {
    vi.mocked(useUpgradeView).mockReturnValue({
      isPending: false,
      isError: false,
      data: { ...VIEW, account_type: 'individual' },
    } as unknown as ReturnType<typeof useUpgradeView>);
    vi.mocked(useApplyCorporate).mockReturnValue({ mutate: vi.fn(), isPending: false } as unknown as ReturnType<typeof useApplyCorporate>);
    const router = createMemoryRouter([{ path: '/upgrade', element: <UpgradePage /> }], { initialEntries: ['/upgrade?plan=individual&step=confirm'] });
    render(<RouterProvider router={router} />);
    expect(screen.getByRole('heading', { name: 'プラン比較' })).toBeInTheDocument();
  });
});
