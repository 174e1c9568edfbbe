import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { PendingTransfer } from '@poi/shared/schemas/transfers';
import { FormField } from '../components/ui/form-field';
import { PriceChangeModal } from '../features/datasets/components/price-change-modal';
import { ConfirmTransferDialog } from '../features/transfers/pages/admin-transfers-page';
import { CorporateApplicationForm, EMPTY_APPLICATION } from '../features/corporate/components/corporate-application-form';
import { CorporateForm } from '../features/corporate/components/corporate-form';

vi.mock('../features/datasets/api/datasets-api', () => ({ useChangePrice: () => ({ mutateAsync: vi.fn() }) }));
vi.mock('../features/transfers/api/admin-transfers-api', () => ({
  useConfirmTransfer: () => ({ mutateAsync: vi.fn(), isPending: false }),
  usePendingTransfers: vi.fn(),
  proposeStatementMatches: vi.fn(),
}));
vi.mock('../features/corporate/api/admin-corporate-api', () => ({
  useCreateCorporate: () => ({ mutateAsync: vi.fn(), isPending: false }),
  useUpdateCorporate: () => ({ mutateAsync: vi.fn(), isPending: false }),
}));

/** The field's error is read with it and marks it invalid. */
function expectTiedError(field: HTMLElement, message: string) {
  expect(field).toHaveAttribute('aria-invalid', 'true');
  expect(field).toHaveAccessibleDescription(expect.stringContaining(message));
  const ids = field.getAttribute('aria-describedby')!.split(' ');
  expect(ids.map((id) => document.getElementById(id)?.textContent)).toContain(message);
}

describe('FormField', () => {
  it('ties its control to the hint, and to the error while there is one', () => {
    const { rerender } = render(
      <FormField id="f" label="名前" hint="全角で入力">
        <input id="f" />
      </FormField>,
    );
    const input = screen.getByRole('textbox', { name: '名前' });
    expect(input).toHaveAccessibleDescription('全角で入力');
    expect(input).not.toHaveAttribute('aria-invalid');
    rerender(
      <FormField id="f" label="名前" hint="全角で入力" error="名前を入力してください">
        <input id="f" aria-describedby="own" />
      </FormField>,
    );
    expect(input).toHaveAttribute('aria-describedby', 'f-error own f-hint');
    expectTiedError(input, '名前を入力してください');
  });

  it('leaves children that are not its control alone', () => {
    render(
      <FormField id="g" label="種別" error="選んでください">
        <div data-testid="group">
          <input type="radio" name="g" aria-label="A" />
        </div>
      </FormField>,
    );
    expect(screen.getByTestId('group')).not.toHaveAttribute('aria-describedby');
  });
});

describe('field errors tied to their fields', () => {
  it('the price dialog: 新しい価格', async () => {
    render(<PriceChangeModal datasetId="d1" currentPrice={0.5} onClose={vi.fn()} />);
    const input = screen.getByLabelText(/新しい価格/);
    await userEvent.clear(input);
    await userEvent.type(input, '1000.01');
    await userEvent.click(screen.getByRole('button', { name: '変更する' }));
    await screen.findByText('価格は0から1000の範囲で入力してください');
    expectTiedError(input, '価格は0から1000の範囲で入力してください');
    expect(input).toHaveAccessibleDescription(expect.stringContaining('0.00 = 無料、最大1000円まで'));
  });

  it('the transfer dialog: 振込名義', async () => {
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
    render(<ConfirmTransferDialog transfer={transfer} onClose={vi.fn()} />);
    const dialog = screen.getByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: '入金を記録する' }));
    expectTiedError(within(dialog).getByLabelText(/振込名義/), '振込名義を入力してください');
  });

  it('the corporate application: 請求書送付先メールアドレス', async () => {
    render(<CorporateApplicationForm values={{ ...EMPTY_APPLICATION, billing_emails: 'not-an-address' }} cardPaymentsAvailable heading={<h2>申込内容</h2>} onNext={vi.fn()} onBack={vi.fn()} />);
    await userEvent.click(screen.getByRole('button', { name: '確認へ進む' }));
    const email = screen.getByLabelText(/請求書送付先メールアドレス/);
    await vi.waitFor(() => expect(email).toHaveAttribute('aria-invalid', 'true'), { timeout: 5_000 });
    const message = document.getElementById('corp-billing-email-error')!.textContent!;
    expect(message).not.toBe('');
    expectTiedError(email, message);
  });

  it('the admin corporate form: 請求書送付先メールアドレス', async () => {
    render(<CorporateForm editing={null} onClose={vi.fn()} />);
    const email = screen.getByLabelText(/請求書送付先メールアドレス/);
    await userEvent.type(email, 'not-an-address');
    await userEvent.click(screen.getByRole('button', { name: '作成する' }));
    await vi.waitFor(() => expect(email).toHaveAttribute('aria-invalid', 'true'), { timeout: 5_000 });
    const message = document.getElementById(`${email.id}-error`)!.textContent!;
    expect(message).not.toBe('');
    expectTiedError(email, message);
  });
});
