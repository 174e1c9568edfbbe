import { describe, expect, it } from 'vitest';
import { launchSettingGaps } from './commerce';

const ISSUER = {
  name: 'POI Cloud株式会社',
  representative: '代表 太郎',
  address: '東京都千代田区1-1-1',
  phone: '03-0000-0000',
  email: 'support@poi.example.com',
  registrationNumber: 'T1234567890123',
};
const BANK = { name: 'テスト銀行', branch: '本店', accountType: '普通', accountNumber: '1234567', holder: 'ポイクラウド' };

describe('launchSettingGaps (the start-up warning and the admin dashboard)', () => {
  it('is empty when everything is configured', () => {
    expect(launchSettingGaps({ issuer: ISSUER, bank: BANK, bankUnset: [] })).toEqual([]);
  });

  it('names the missing ISSUER_* items, ISSUER_REGISTRATION_NUMBER and the unset BANK_* variables', () => {
    expect(launchSettingGaps({ issuer: { name: 'POI Cloud株式会社', phone: '03-0000-0000' }, bank: undefined, bankUnset: ['BANK_BRANCH', 'BANK_ACCOUNT_HOLDER'] })).toEqual([
      'ISSUER_REPRESENTATIVE',
      'ISSUER_ADDRESS',
      'ISSUER_EMAIL',
      'ISSUER_REGISTRATION_NUMBER',
      'BANK_BRANCH',
      'BANK_ACCOUNT_HOLDER',
    ]);
  });

  it('lists every required BANK_* variable when no bank account is configured and which ones is not known', () => {
    expect(launchSettingGaps({ issuer: ISSUER, bank: undefined })).toEqual(['BANK_NAME', 'BANK_BRANCH', 'BANK_ACCOUNT_NUMBER', 'BANK_ACCOUNT_HOLDER']);
  });
});
