import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PriceChangeModal } from './price-change-modal';

const changePrice = vi.fn();
vi.mock('../api/datasets-api', () => ({ useChangePrice: () => ({ mutateAsync: changePrice }) }));

describe('PriceChangeModal', () => {
  it('checks the bounds, shows the hint, and stays open with the error inline on failure', async () => {
    changePrice.mockRejectedValue(new Error('network'));
    const onClose = vi.fn();
    render(<PriceChangeModal datasetId="d1" currentPrice={0.5} onClose={onClose} />);
    expect(screen.getByText('0.00 = 無料、最大1000円まで')).toBeInTheDocument();
    const input = screen.getByLabelText(/新しい価格/);
    await userEvent.clear(input);
    await userEvent.type(input, '1000.01');
    await userEvent.click(screen.getByRole('button', { name: '変更する' }));
    expect(await screen.findByText('価格は0から1000の範囲で入力してください')).toBeInTheDocument();
    expect(changePrice).not.toHaveBeenCalled();
    await userEvent.clear(input);
    await userEvent.type(input, '2.5');
    await userEvent.click(screen.getByRole('button', { name: '変更する' }));
    expect(await screen.findByText('価格の変更に失敗しました')).toBeInTheDocument();
    expect(changePrice).toHaveBeenCalledWith({ new_price: 2.5, reason: null });
    expect(onClose).not.toHaveBeenCalled();
  });
});
