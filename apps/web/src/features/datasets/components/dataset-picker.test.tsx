import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { Dataset } from '@poi/shared/schemas/datasets';
import type { DatasetListFilters } from '../api/keys';
import { DatasetPicker } from './dataset-picker';

const dataset = (n: number): Dataset => ({
  dataset_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `データセット${String(n).padStart(3, '0')}`,
  description: null,
  price_per_search: 0,
  is_platform_dataset: false,
  created_at: '2026-11-23T00:00:00Z',
  poi_count: n,
  can_manage: true,
});
const ALL = Array.from({ length: 150 }, (_, i) => dataset(i));

// The server's answer: keyword over the name, 20 at a time, with the exact total.
const calls: DatasetListFilters[] = [];
vi.mock('../api/datasets-api', () => ({
  useDatasets: (filters: DatasetListFilters, options: { enabled?: boolean }) => {
    if (options.enabled) calls.push(filters);
    const matches = ALL.filter((d) => !filters.keyword || d.name.includes(filters.keyword.normalize('NFKC')));
    return { data: options.enabled ? { datasets: matches.slice(0, filters.limit), total: matches.length } : undefined, isFetching: false, isError: false };
  },
}));

function Harness({ onPick }: { onPick: (d: Dataset | null) => void }) {
  const [value, setValue] = useState<Dataset | null>(null);
  return (
    <>
      <label htmlFor="pick">データセット</label>
      <DatasetPicker
        id="pick"
        managed
        value={value}
        noneLabel="すべて"
        onChange={(d) => {
          setValue(d);
          onPick(d);
        }}
      />
    </>
  );
}

describe('DatasetPicker', () => {
  it('searches the server as the user types and picks the 150th dataset with the keyboard', { timeout: 20_000 }, async () => {
    const onPick = vi.fn();
    render(<Harness onPick={onPick} />);
    const box = screen.getByRole('combobox', { name: 'データセット' });
    expect(box).toHaveAttribute('aria-expanded', 'false');
    expect(box).toHaveValue('すべて');

    await userEvent.click(box);
    expect(box).toHaveAttribute('aria-expanded', 'true');
    // "すべて" plus the first 20 of 150, and a hint to narrow.
    expect(await screen.findAllByRole('option')).toHaveLength(21);
    expect(screen.getByText('全 150 件中 20 件を表示しています。名前や説明の一部を入力すると絞り込めます')).toBeInTheDocument();

    await userEvent.clear(box);
    await userEvent.type(box, '１４９'); // full-width digits
    await waitFor(() => expect(screen.getAllByRole('option')).toHaveLength(1));
    expect(calls.at(-1)).toMatchObject({ keyword: '１４９', managed: true, limit: 20 });
    const option = screen.getByRole('option', { name: 'データセット149' });
    await userEvent.keyboard('{ArrowDown}');
    expect(box).toHaveAttribute('aria-activedescendant', option.id);
    await userEvent.keyboard('{Enter}');
    expect(onPick).toHaveBeenLastCalledWith(ALL[149]);
    expect(box).toHaveValue('データセット149');
    expect(box).toHaveAttribute('aria-expanded', 'false');
  });

  it('Escape closes the list and restores the choice without reaching a dialog around it', { timeout: 20_000 }, async () => {
    const onDocumentEscape = vi.fn();
    document.addEventListener('keydown', (e) => e.key === 'Escape' && onDocumentEscape());
    const onPick = vi.fn();
    render(<Harness onPick={onPick} />);
    const box = screen.getByRole('combobox', { name: 'データセット' });
    await userEvent.click(box);
    await userEvent.type(box, '00');
    await waitFor(() => expect(screen.getAllByRole('option').length).toBeGreaterThan(0));
    await userEvent.keyboard('{Escape}');
    expect(box).toHaveAttribute('aria-expanded', 'false');
    expect(box).toHaveValue('すべて');
    expect(onDocumentEscape).not.toHaveBeenCalled();
    expect(onPick).not.toHaveBeenCalled();
    // Alt+↓ opens it again; a click picks.
    await userEvent.keyboard('{Alt>}{ArrowDown}{/Alt}');
    expect(box).toHaveAttribute('aria-expanded', 'true');
    await userEvent.click(await screen.findByRole('option', { name: 'データセット002' }));
    expect(onPick).toHaveBeenLastCalledWith(ALL[2]);
  });
});
