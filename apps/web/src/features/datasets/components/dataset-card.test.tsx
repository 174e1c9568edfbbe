import { act, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dataset } from '@poi/shared/schemas/datasets';
import { authStore } from '../../../lib/auth-store';
import { DatasetCard } from './dataset-card';

const DATASET: Dataset = {
  dataset_id: '11111111-1111-4111-8111-111111111111',
  name: '病院データ',
  description: null,
  price_per_search: 1.33,
  is_platform_dataset: false,
  created_at: '2026-11-01T00:00:00.000Z',
  poi_count: 10,
  can_manage: false,
};

function renderAs(accountType: 'trial' | 'individual' | 'corporate', dataset = DATASET) {
  act(() => authStore.signIn('t', { id: 'u1', email: 'a@example.com', display_name: null, role: 'user', account_type: accountType }));
  render(
    <MemoryRouter>
      <DatasetCard dataset={dataset} />
    </MemoryRouter>,
  );
}

afterEach(() => act(() => authStore.clear()));

describe('dataset card price (総額表示)', () => {
  it('shows trial and individual viewers the exact tax-inclusive price with the tax-exclusive one beside it', () => {
    renderAs('individual');
    expect(screen.getByRole('article')).toHaveTextContent('税込 ¥1.463（税抜 ¥1.33）/ 検索');
  });

  it('shows corporate viewers the tax-exclusive price', () => {
    renderAs('corporate');
    expect(screen.getByRole('article')).toHaveTextContent('¥1.33/ 検索');
    expect(screen.getByRole('article')).not.toHaveTextContent('税込');
  });

  it('leaves a free dataset at ¥0.00 for consumers too', () => {
    renderAs('trial', { ...DATASET, price_per_search: 0 });
    expect(screen.getByRole('article')).toHaveTextContent('¥0.00/ 検索');
    expect(screen.getByRole('article')).not.toHaveTextContent('税込');
  });
});
