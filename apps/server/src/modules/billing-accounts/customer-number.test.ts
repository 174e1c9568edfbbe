import { describe, expect, it } from 'vitest';
import { checkDigit, isValidCustomerNumber, newCustomerNumber } from './customer-number';

describe('customer number', () => {
  it('is 7 digits whose last one checks the rest', () => {
    for (let i = 0; i < 200; i++) {
      const n = newCustomerNumber();
      expect(n).toMatch(/^[1-9]\d{6}$/);
      expect(isValidCustomerNumber(n)).toBe(true);
    }
  });

  it('catches one wrong digit and a swap of neighbours', () => {
    const n = `123456${checkDigit('123456')}`;
    expect(isValidCustomerNumber(n)).toBe(true);
    for (let i = 0; i < 7; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === n[i]) continue;
        const typo = n.slice(0, i) + d + n.slice(i + 1);
        expect(isValidCustomerNumber(typo)).toBe(false);
      }
    }
    expect(isValidCustomerNumber('1324567'.slice(0, 6) + checkDigit('123456'))).toBe(false);
  });
});
