import { describe, expect, it } from 'vitest';
import { csvCell } from './export-format';

describe('csvCell', () => {
  it('neutralises formula starters in text, half and full width, and leaves numbers alone', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+81-3-1234')).toBe("'+81-3-1234");
    expect(csvCell('-danger')).toBe("'-danger");
    expect(csvCell('@sum')).toBe("'@sum");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    for (const fullWidth of ['＝SUM(A1)', '＋81', '－1', '＠cosme']) expect(csvCell(fullWidth)).toBe(`'${fullWidth}`);
    expect(csvCell(-33.8688)).toBe('-33.8688');
    expect(csvCell('東京, 丸の内')).toBe('"東京, 丸の内"');
    expect(csvCell(null)).toBe('');
  });

  it("prefixes a cell that really starts with ' so the import can always remove exactly one", () => {
    expect(csvCell("'quoted")).toBe("''quoted");
    expect(csvCell("it's")).toBe("it's");
  });
});
