import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { Commerce } from '@poi/shared/schemas/commerce';
import { useCommerce } from '../api/commerce-api';
import { CommercePage } from './commerce-page';

vi.mock('../api/commerce-api', () => ({ useCommerce: vi.fn() }));

const FULL: Commerce = {
  complete: true,
  missing: [],
  seller: 'POI Cloud株式会社',
  representative: '代表 太郎',
  address: '東京都千代田区1-1-1',
  phone: '03-0000-0000',
  phone_hours: '平日10:00〜17:00',
  email: 'support@poi.example.com',
  registration_number: 'T1234567890123',
  bank_account: 'テスト銀行 本店 普通 1234567 ポイクラウド',
};

function renderWith(c: Commerce) {
  vi.mocked(useCommerce).mockReturnValue({ isPending: false, isError: false, data: c } as unknown as ReturnType<typeof useCommerce>);
  render(
    <MemoryRouter>
      <CommercePage />
    </MemoryRouter>,
  );
}

const terms = () => screen.getAllByRole('term').map((t) => t.textContent);

describe('/commerce', () => {
  it('shows every configured item, the registration number included', () => {
    renderWith(FULL);
    expect(terms()).toEqual(expect.arrayContaining(['販売事業者', '運営責任者', '所在地', '電話番号', 'メールアドレス', '適格請求書発行事業者登録番号', '振込先']));
    expect(screen.getByText('T1234567890123')).toBeInTheDocument();
    expect(screen.queryByText(/準備中/)).toBeNull();
  });

  it('claims nothing that is not configured: no 「未設定」, no 「登録申請中」, the unset items left out and the notice said to be in preparation', () => {
    renderWith({ ...FULL, complete: false, missing: ['ISSUER_REPRESENTATIVE', 'ISSUER_ADDRESS', 'ISSUER_EMAIL'], representative: null, address: null, email: null, registration_number: null, bank_account: null });
    const text = document.body.textContent ?? '';
    expect(text).not.toContain('未設定');
    expect(text).not.toContain('登録申請中');
    for (const gone of ['運営責任者', '所在地', 'メールアドレス', '適格請求書発行事業者登録番号', '振込先']) expect(terms()).not.toContain(gone);
    expect(terms()).toEqual(expect.arrayContaining(['販売事業者', '電話番号', '販売価格']));
    expect(screen.getByRole('status')).toHaveTextContent('この表記は準備中です');
  });
});
