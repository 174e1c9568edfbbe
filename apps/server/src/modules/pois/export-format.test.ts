import { describe, expect, it } from 'vitest';
import { csvCell } from './export-format';

describe('csvCell', () => {
  it('neutralises formula starters in text and leaves numbers alone', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+81-3-1234')).toBe("'+81-3-1234");
    expect(csvCell('-danger')).toBe("'-danger");
    expect(csvCell('@sum')).toBe("'@sum");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell(-33.8688)).toBe('-33.8688');
    expect(csvCell('東京, 丸の内')).toBe('"東京, 丸の内"');
    expect(csvCell(null)).toBe('');
  });
});
