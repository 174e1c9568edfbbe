import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { poiFieldsSchema } from '@poi/shared/schemas/poi';
import { PoiFormModal, toPayload } from './poi-form-modal';

const registerPoi = vi.fn();
vi.mock('../api/pois-api', () => ({
  useRegisterPoi: () => ({ mutateAsync: registerPoi }),
}));

describe('POI create payload (spec 5)', () => {
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
    await userEvent.type(screen.getByLabelText('タグ'), '観光, ');
    await userEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByRole('button', { name: '登録中...' })).toHaveAttribute('aria-disabled', 'true');
    expect(registerPoi).toHaveBeenCalledWith({ name: '東京タワー', latitude: 35.658584, longitude: 139.745431, tags: ['観光'], dataset_id: 'd1' });
    resolve({ poi_id: 'p1' });
    await vi.waitFor(() => expect(onClose).toHaveBeenCalled());
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
