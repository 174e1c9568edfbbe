import { describe, expect, it } from 'vitest';
import { currentYearMonth, formatCoordinate, formatDate, formatFileSize, formatUnitPrice, formatUnitPriceSen, formatYen, formatYenAmount, getInitials } from './format';

describe('formatYen', () => {
  it('uses the yen sign, separators and the requested decimals', () => {
    expect(formatYen(1234.5)).toBe('¥1,234.50');
    expect(formatYen('0.1', 4)).toBe('¥0.1000');
    expect(formatYen(0)).toBe('¥0.00');
    expect(formatYen('not a number')).toBe('¥0.00');
  });
});

describe('formatYenAmount and formatUnitPriceSen (invoice and receipt PDFs)', () => {
  it('writes yen with ja-JP separators and unit prices with exactly 2 decimals from sen', () => {
    expect(formatYenAmount(0)).toBe('¥0');
    expect(formatYenAmount(1_234_567)).toBe('¥1,234,567');
    expect(formatYenAmount(-500)).toBe('-¥500');
    expect(formatUnitPriceSen(3)).toBe('¥0.03');
    expect(formatUnitPriceSen(700)).toBe('¥7.00');
    expect(formatUnitPriceSen(123_456_789)).toBe('¥1,234,567.89');
    // Past 2^53 / 100 a float division would round; integer arithmetic stays exact.
    expect(formatUnitPriceSen(900_719_925_474_099)).toBe('¥9,007,199,254,740.99');
  });
});

describe('formatUnitPrice (per-search prices on screen)', () => {
  it('shows sen with 2 decimals and a third only when the value has one, never 4', () => {
    expect(formatUnitPrice(0.5)).toBe('¥0.50');
    expect(formatUnitPrice(0)).toBe('¥0.00');
    expect(formatUnitPrice(12)).toBe('¥12.00');
    expect(formatUnitPrice(1.463)).toBe('¥1.463');
    expect(formatUnitPrice(0.1 + 0.2)).toBe('¥0.30');
    expect(formatUnitPrice(1234.5)).toBe('¥1,234.50');
    expect(formatUnitPrice('0.25')).toBe('¥0.25');
  });
});

describe('formatDate', () => {
  it('formats in ja-JP, Japan time', () => {
    expect(formatDate('2026-11-21T16:00:00Z')).toBe('2026/11/22');
    expect(formatDate(null)).toBe('');
    expect(formatDate('garbage')).toBe('');
  });
});

describe('formatCoordinate', () => {
  it('shows 6 decimals', () => {
    expect(formatCoordinate(35.6812362)).toBe('35.681236');
    expect(formatCoordinate(-0.5)).toBe('-0.500000');
  });
});

describe('formatFileSize', () => {
  it('uses B, KB or MB', () => {
    expect(formatFileSize(512)).toBe('512 B');
    expect(formatFileSize(2048)).toBe('2.0 KB');
    expect(formatFileSize(10 * 1024 * 1024)).toBe('10.0 MB');
  });
});

describe('getInitials', () => {
  it('keeps at most 2 letters', () => {
    expect(getInitials('Taro Yamada Jr')).toBe('TY');
    expect(getInitials('山田太郎')).toBe('山田');
    expect(getInitials('  ', 'user@example.com')).toBe('U');
    expect(getInitials(null, null)).toBe('?');
  });
});

describe('currentYearMonth', () => {
  it('is the month in Japan', () => {
    expect(currentYearMonth(new Date('2026-11-30T15:30:00Z'))).toBe('2026-12');
    expect(currentYearMonth(new Date('2026-01-05T00:00:00Z'))).toBe('2026-01');
  });
});
