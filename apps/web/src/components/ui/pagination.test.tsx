import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Pagination } from './pagination';

describe('Pagination', () => {
  it('is hidden with one page', () => {
    const { container } = render(<Pagination page={1} totalPages={1} total={5} onChange={() => {}} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('shows the spec text and disables the ends', async () => {
    const onChange = vi.fn();
    const { rerender } = render(<Pagination page={1} totalPages={3} total={45} onChange={onChange} />);
    expect(screen.getByText('1 / 3 ページ (全 45 件)')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '前へ' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: '次へ' }));
    expect(onChange).toHaveBeenCalledWith(2);
    rerender(<Pagination page={3} totalPages={3} total={45} onChange={onChange} />);
    expect(screen.getByRole('button', { name: '次へ' })).toBeDisabled();
  });

  it('pages past a capped total while the server says more follow', async () => {
    const onChange = vi.fn();
    const { rerender } = render(<Pagination page={5} totalPages={5} total={100} capped hasNext onChange={onChange} />);
    expect(screen.getByText('5 ページ (100件以上)')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '次へ' }));
    expect(onChange).toHaveBeenCalledWith(6);
    rerender(<Pagination page={7} totalPages={5} total={100} capped hasNext={false} onChange={onChange} />);
    expect(screen.getByRole('button', { name: '次へ' })).toBeDisabled();
    expect(screen.getByRole('button', { name: '前へ' })).toBeEnabled();
  });
});
