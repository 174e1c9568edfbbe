import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type * as InvoicesApi from '../api/invoices-api';
import { useInvoices } from '../api/invoices-api';
import { InvoiceList } from './invoice-list';

vi.mock('../api/invoices-api', async (importOriginal) => ({
  ...(await importOriginal<typeof InvoicesApi>()),
  useInvoices: vi.fn(() => ({ isPending: false, isError: false, data: { invoices: [], total: 0 } })),
}));

function renderAt(path: string) {
  const router = createMemoryRouter([{ path: '/billing', element: <InvoiceList /> }], { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}

const lastCall = () => vi.mocked(useInvoices).mock.calls.at(-1)!;

describe('InvoiceList filters in the URL', () => {
  it('reads the filters and the page from the URL (a reload or a shared link shows the same list)', () => {
    renderAt('/billing?issued_from=2026-10-01&amount_min=1000&page=2');
    expect(lastCall()).toEqual([{ issued_from: '2026-10-01', issued_to: '', amount_min: '1000', amount_max: '' }, 2]);
    expect(screen.getByLabelText('発行日(から)')).toHaveValue('2026-10-01');
    expect(screen.getByLabelText('合計(円以上)')).toHaveValue(1000);
    expect(screen.getByText('条件に合う請求書はありません')).toBeInTheDocument();
  });

  it('writes applied filters to the URL, from page 1, and the back button returns to the previous filters', async () => {
    const router = renderAt('/billing?amount_min=1000&page=3');
    await userEvent.clear(screen.getByLabelText('合計(円以上)'));
    await userEvent.type(screen.getByLabelText('合計(円以下)'), '5000');
    // Typing alone changes nothing.
    expect(router.state.location.search).toBe('?amount_min=1000&page=3');
    await userEvent.click(screen.getByRole('button', { name: '絞り込む' }));
    expect(router.state.location.search).toBe('?amount_max=5000');
    expect(lastCall()).toEqual([{ issued_from: '', issued_to: '', amount_min: '', amount_max: '5000' }, 1]);

    await router.navigate(-1);
    await waitFor(() => expect(screen.getByLabelText('合計(円以上)')).toHaveValue(1000));
    expect(screen.getByLabelText('合計(円以下)')).toHaveValue(null);
    expect(lastCall()).toEqual([{ issued_from: '', issued_to: '', amount_min: '1000', amount_max: '' }, 3]);
  });

  it('says there are no invoices yet when nothing is filtered', () => {
    renderAt('/billing');
    expect(screen.getByText('請求書はまだありません')).toBeInTheDocument();
  });
});
