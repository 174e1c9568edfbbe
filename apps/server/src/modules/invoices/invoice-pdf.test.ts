import { describe, expect, it } from 'vitest';
import { bankSnapshot, formatDateJa, formatUnitPriceSen, formatYen, invoiceTitle, registrationNumberOf } from './invoice-pdf';

describe('invoice PDF formatting', () => {
  it('writes yen with ja-JP separators and unit prices with exactly 2 decimals from sen', () => {
    expect(formatYen(0)).toBe('¥0');
    expect(formatYen(1_234_567)).toBe('¥1,234,567');
    expect(formatYen(-500)).toBe('-¥500');
    expect(formatUnitPriceSen(3)).toBe('¥0.03');
    expect(formatUnitPriceSen(700)).toBe('¥7.00');
    expect(formatUnitPriceSen(123_456_789)).toBe('¥1,234,567.89');
    // Past 2^53 / 100 a float division would round; integer arithmetic stays exact.
    expect(formatUnitPriceSen(900_719_925_474_099)).toBe('¥9,007,199,254,740.99');
  });

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
