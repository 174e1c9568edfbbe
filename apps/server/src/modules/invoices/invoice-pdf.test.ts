import { describe, expect, it } from 'vitest';
import { bankSnapshot, formatDateJa, invoiceTitle, registrationNumberOf } from './invoice-pdf';

describe('invoice PDF formatting', () => {
  it('writes dates as YYYY年M月D日', () => {
    expect(formatDateJa('2026-05-01')).toBe('2026年5月1日');
    expect(formatDateJa('2026-12-31')).toBe('2026年12月31日');
    expect(formatDateJa(null)).toBe('');
  });

  it('titles a qualified invoice only with a valid registration number', () => {
    expect(invoiceTitle({ registration_number: 'T1234567890123' })).toBe('請求書（適格請求書）');
    expect(registrationNumberOf({ registration_number: ' T1234567890123 ' })).toBe('T1234567890123');
    for (const bad of [null, '', '1234567890123', 'T0234567890123', 'T123456789012', 'T12345678901234']) {
      expect(invoiceTitle({ registration_number: bad })).toBe('請求書');
    }
    expect(invoiceTitle({})).toBe('請求書');
  });

  it('snapshots the bank account in the snapshot’s snake_case', () => {
    expect(bankSnapshot({ name: 'A銀行', branch: 'B支店', accountType: '普通', accountNumber: '1234567', holder: 'カ）ポイ' })).toEqual({
      name: 'A銀行',
      branch: 'B支店',
      account_type: '普通',
      account_number: '1234567',
      holder: 'カ）ポイ',
    });
    expect(bankSnapshot(undefined)).toBeNull();
  });
});
