import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it, vi } from 'vitest';
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

const renderForm = (poi?: Parameters<typeof PoiFormModal>[0]['poi']) =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <PoiFormModal datasetId="d1" poi={poi} onClose={() => undefined} />
    </QueryClientProvider>,
  );
const chips = () => screen.queryAllByRole('listitem').map((li) => li.textContent);
const stored = (tags: string[]) => ({
  poi_id: 'p1', dataset_id: 'd1', name: '店', latitude: 35.1, longitude: 139.2, address: null, category: null, description: null,
  phone: null, website: null, image_url: null, tags, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
});
const savedTags = async () => {
  await userEvent.click(screen.getByRole('button', { name: '更新' }));
  await vi.waitFor(() => expect(registerPoi).toHaveBeenCalled());
  return registerPoi.mock.calls.at(-1)![0].tags as string[] | undefined;
};

describe('the tag field', { timeout: 30_000 }, () => {
  beforeEach(() => {
    registerPoi.mockReset();
    registerPoi.mockResolvedValue({ poi_id: 'p1' });
  });

  it('is labelled and says how tags are separated', () => {
    renderForm(stored([]));
    const field = screen.getByRole('textbox', { name: 'タグ' });
    expect(field).toHaveAccessibleDescription('カンマ(,)・読点(、)・Enter・「追加」で区切ります。Backspace で最後のタグを削除');
  });

  it('commits a tag at a comma: 「カフェ, Wi-Fi」 then Enter gives two chips, and the server gets exactly those', async () => {
    renderForm(stored([]));
    const field = screen.getByLabelText('タグ');
    await userEvent.type(field, 'カフェ, Wi-Fi');
    expect(chips()).toEqual(['カフェ']);
    expect(field).toHaveValue(' Wi-Fi');
    await userEvent.keyboard('{Enter}');
    expect(chips()).toEqual(['カフェ', 'Wi-Fi']);
    expect(field).toHaveValue('');
    expect(await savedTags()).toEqual(['カフェ', 'Wi-Fi']);
  });

  it('commits at a full-width comma and at 「、」, trimmed; empty and repeated tags are ignored', async () => {
    renderForm(stored([]));
    await userEvent.type(screen.getByLabelText('タグ'), ' 電源 ，個室、 , 、電源,{Enter}Wi-Fi、');
    expect(chips()).toEqual(['電源', '個室', 'Wi-Fi']);
    expect(screen.getByLabelText('タグ')).toHaveValue('');
    expect(await savedTags()).toEqual(['電源', '個室', 'Wi-Fi']);
  });

  it('splits a pasted list (commas, 、 and lines) into chips', async () => {
    renderForm(stored(['既存']));
    await userEvent.click(screen.getByLabelText('タグ'));
    await userEvent.paste('カフェ, Wi-Fi、電源\n既存\n');
    expect(chips()).toEqual(['既存', 'カフェ', 'Wi-Fi', '電源']);
    expect(screen.getByLabelText('タグ')).toHaveValue('');
    // A paste without separators is just typed text.
    await userEvent.paste('テラス');
    expect(screen.getByLabelText('タグ')).toHaveValue('テラス');
    expect(await savedTags()).toEqual(['既存', 'カフェ', 'Wi-Fi', '電源', 'テラス']);
  });

  it('keeps a stored tag holding a comma whole when the POI is saved unchanged', async () => {
    renderForm(stored(['駅前, 東口', 'a、b', 'x|y']));
    expect(chips()).toEqual(['駅前, 東口', 'a、b', 'x|y']);
    expect(await savedTags()).toEqual(['駅前, 東口', 'a、b', 'x|y']);
  });

  it('removes chips by keyboard: each has a remove button, Backspace in the empty field removes the last', async () => {
    renderForm(stored(['a', 'b', 'c']));
    const field = screen.getByLabelText('タグ');
    await userEvent.click(field);
    await userEvent.keyboard('{Backspace}');
    expect(chips()).toEqual(['a', 'b']);
    // Backspace in a field holding text edits the text, not the chips.
    await userEvent.keyboard('d{Backspace}{Backspace}');
    expect(chips()).toEqual(['a']);
    const remove = screen.getByRole('button', { name: 'タグ「a」を削除' });
    remove.focus();
    await userEvent.keyboard('{Enter}');
    expect(chips()).toEqual([]);
    expect(field).toHaveFocus();
    expect(await savedTags()).toBeUndefined();
  });
});

describe('PoiFormModal', { timeout: 30_000 }, () => {
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
    await userEvent.type(screen.getByLabelText('タグ'), 'カフェ, Wi-Fi{Enter}');
    await userEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByRole('button', { name: '登録中...' })).toHaveAttribute('aria-disabled', 'true');
    expect(registerPoi).toHaveBeenCalledWith({ name: '東京タワー', latitude: 35.658584, longitude: 139.745431, tags: ['カフェ', 'Wi-Fi'], dataset_id: 'd1' });
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
