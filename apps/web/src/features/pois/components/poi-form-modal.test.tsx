import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { poiFieldsSchema } from '@poi/shared/schemas/pois';
import { PoiFormModal, toPayload } from './poi-form-modal';

const registerPoi = vi.fn();
vi.mock('../api/pois-api', () => ({
  useRegisterPoi: () => ({ mutateAsync: registerPoi }),
}));

describe('POI create payload', () => {
  it('leaves out empty fields and empty tags', () => {
    const parsed = poiFieldsSchema.parse({ name: ' 店 ', latitude: '35.1', longitude: '139.2', address: '', phone: '  ', tags: ' , ,' });
    expect(toPayload(parsed)).toEqual({ name: '店', latitude: 35.1, longitude: 139.2 });
    const withTags = poiFieldsSchema.parse({ name: '店', latitude: 1, longitude: 2, tags: 'カフェ, Wi-Fi ,' });
    expect(toPayload(withTags).tags).toEqual(['カフェ', 'Wi-Fi']);
  });
});

describe('PoiFormModal', () => {
  it('shows field errors, then submits only filled fields and reads 登録中... while submitting', async () => {
    let resolve!: (v: unknown) => void;
    registerPoi.mockImplementation(() => new Promise((r) => (resolve = r)));
    const onClose = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PoiFormModal datasetId="d1" onClose={onClose} />
      </QueryClientProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByText('名称を入力してください')).toBeInTheDocument();
    expect(screen.getByText('緯度を入力してください')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/名称/), '東京タワー');
    await userEvent.type(screen.getByLabelText(/緯度/), '35.658584');
    await userEvent.type(screen.getByLabelText(/経度/), '139.745431');
    await userEvent.type(screen.getByLabelText('タグ'), '観光{Enter}a,b|c{Enter}');
    await userEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByRole('button', { name: '登録中...' })).toHaveAttribute('aria-disabled', 'true');
    expect(registerPoi).toHaveBeenCalledWith({ name: '東京タワー', latitude: 35.658584, longitude: 139.745431, tags: ['観光', 'a,b|c'], dataset_id: 'd1' });
    resolve({ poi_id: 'p1' });
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it('keeps each tag whole: 更新 on an unchanged edit sends the same tags back', async () => {
    registerPoi.mockReset();
    registerPoi.mockResolvedValue({ poi_id: 'p1' });
    const poi = {
      poi_id: 'p1', dataset_id: 'd1', name: '店', latitude: 35.1, longitude: 139.2, address: null, category: null, description: null,
      phone: null, website: null, image_url: null, tags: ['a,b', 'c', 'x|y'], created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    };
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PoiFormModal datasetId="d1" poi={poi} onClose={() => undefined} />
      </QueryClientProvider>,
    );
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['a,b', 'c', 'x|y']);
    await userEvent.click(screen.getByRole('button', { name: '更新' }));
    await vi.waitFor(() => expect(registerPoi).toHaveBeenCalled());
    expect(registerPoi.mock.calls[0]![0]).toMatchObject({ poi_id: 'p1', tags: ['a,b', 'c', 'x|y'] });
    // Removing one tag removes that tag only.
    await userEvent.click(screen.getByRole('button', { name: 'タグ「c」を削除' }));
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['a,b', 'x|y']);
  });

  it('closes on a backdrop click', async () => {
    const onClose = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <PoiFormModal datasetId="d1" onClose={onClose} />
      </QueryClientProvider>,
    );
    await userEvent.click(screen.getByTestId('modal-backdrop'));
    expect(onClose).toHaveBeenCalled();
  });
});
