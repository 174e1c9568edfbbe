import { describe, expect, it } from 'vitest';
import { senToDecimalString, senToYen, toSen } from './money';

describe('money', () => {
  it('converts without floating-point drift', () => {
    expect(toSen('0.10')).toBe(10);
    expect(toSen('1000.00')).toBe(100000);
    expect(toSen(0.29)).toBe(29);
    expect(toSen('12.3')).toBe(1230);
    expect(toSen('-1.05')).toBe(-105);
    expect(senToDecimalString(5)).toBe('0.05');
    expect(senToDecimalString(123456)).toBe('1234.56');
    expect(senToYen(toSen('0.1') + toSen('0.2'))).toBe(0.3);
    expect(() => toSen('abc')).toThrow();
  });
});
