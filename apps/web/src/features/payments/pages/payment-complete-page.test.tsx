import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PaymentCompletePage } from './payment-complete-page';

type Query = { isPending: boolean; isError: boolean; error?: unknown; data?: unknown };
let query: Query;
vi.mock('../api/payments-api', () => ({
  useCompleteCheckout: () => query,
  getCurrentUser: vi.fn(async () => null),
}));

const renderAt = (url: string) =>
  render(
    <MemoryRouter initialEntries={[url]}>
      <PaymentCompletePage />
    </MemoryRouter>,
  );

describe('/payment-method/complete', () => {
  beforeEach(() => {
    document.title = '';
  });

  it('an unknown session: heading and title say the registration failed, not 「カード登録完了」', () => {
    query = { isPending: false, isError: true, error: new Error('not found') };
    renderAt('/payment-method/complete?session_id=cs_unknown');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('カード登録を完了できませんでした');
    expect(document.title).toBe('カード登録を完了できませんでした | POI Cloud');
    expect(screen.getByRole('link', { name: 'お支払い方法へ戻る' })).toBeInTheDocument();
  });

  it('no session at all: the same', () => {
    query = { isPending: false, isError: false };
    renderAt('/payment-method/complete');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('カード登録を完了できませんでした');
    expect(document.title).toBe('カード登録を完了できませんでした | POI Cloud');
  });

  it('while checking, then done: 「カード登録完了」 only once the card is saved', () => {
    query = { isPending: true, isError: false };
    const { rerender } = renderAt('/payment-method/complete?session_id=cs_ok');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('カード登録の確認');
    expect(document.title).toBe('カード登録の確認 | POI Cloud');
    query = { isPending: false, isError: false, data: { purpose: 'card', card: { brand: 'visa', last4: '4242', exp_month: 4, exp_year: 2030 }, next: '/billing' } };
    rerender(
      <MemoryRouter initialEntries={['/payment-method/complete?session_id=cs_ok']}>
        <PaymentCompletePage />
      </MemoryRouter>,
    );
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('カード登録完了');
    expect(document.title).toBe('カード登録完了 | POI Cloud');
  });
});
