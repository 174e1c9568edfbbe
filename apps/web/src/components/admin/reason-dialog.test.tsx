import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ReasonDialog, reasonError } from './reason-dialog';

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
    const refusal = Object.assign(new Error('conflict'), { isApiRequestError: true, response: { status: 409, data: { success: false, error: { code: 'CONFLICT', message: '有効な管理者が他にいないため、この操作はできません' } } } });
    const onClose = vi.fn();
    render(<ReasonDialog title="停止" description="" submitLabel="停止する" onSubmit={() => Promise.reject(refusal)} onClose={onClose} />);
    await userEvent.type(screen.getByLabelText(/理由/), 'テスト');
    await userEvent.click(screen.getByRole('button', { name: '停止する' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('有効な管理者が他にいないため、この操作はできません');
    expect(onClose).not.toHaveBeenCalled();
  });
});
