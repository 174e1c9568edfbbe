import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { messages } from '@poi/shared/messages';
import { CorporateApplicationForm, EMPTY_APPLICATION } from './corporate-application-form';

const renderForm = (cardPaymentsAvailable: boolean) =>
  render(<CorporateApplicationForm values={EMPTY_APPLICATION} cardPaymentsAvailable={cardPaymentsAvailable} heading={<h2>申込内容</h2>} onNext={vi.fn()} onBack={vi.fn()} />);

describe('CorporateApplicationForm payment choice', () => {
  it('disables the card and says why, with the server’s own card-unavailable text, when card payments are off', () => {
    renderForm(false);
    const card = screen.getByRole('radio', { name: 'クレジットカード' });
    expect(card).toBeDisabled();
    expect(card).toHaveAccessibleDescription(messages.cardUnavailable);
    expect(screen.getByRole('radio', { name: '請求書払い(銀行振込)' })).toBeChecked();
  });

  it('offers the card without the notice when card payments work', () => {
    renderForm(true);
    expect(screen.getByRole('radio', { name: 'クレジットカード' })).toBeEnabled();
    expect(screen.queryByText(messages.cardUnavailable)).toBeNull();
  });
});
