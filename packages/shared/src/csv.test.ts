import { describe, expect, it } from 'vitest';
import { csvCell, csvDocument, csvLine } from './csv';

describe('csvCell', () => {
  it('neutralises every leading character a spreadsheet reads as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('=1+2')).toBe("'=1+2");
    expect(csvCell('+81-3-1234')).toBe("'+81-3-1234");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    for (const fullWidth of ['＝SUM(A1)', '＋81', '－1', '＠cosme']) expect(csvCell(fullWidth)).toBe(`'${fullWidth}`);
  });

  it("prefixes a leading ' too, so an import removes exactly one", () => {
    expect(csvCell("'quoted")).toBe("''quoted");
    expect(csvCell("it's")).toBe("it's");
  });

  it('quotes cells with quotes, commas and line breaks, doubling the quotes', () => {
    expect(csvCell('本番, "メイン"')).toBe('"本番, ""メイン"""');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('1行目\n2行目')).toBe('"1行目\n2行目"');
    expect(csvCell('1行目\r\n2行目')).toBe('"1行目\r\n2行目"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
  });

  it('leaves plain text, numbers and empty values alone', () => {
    expect(csvCell('東京のカフェ')).toBe('東京のカフェ');
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(-33.8688)).toBe('-33.8688');
    expect(csvCell(0)).toBe('0');
    expect(csvCell('')).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });
});

describe('csvLine and csvDocument', () => {
  it('join cells with commas, lines with CRLF, after a BOM', () => {
    expect(csvLine(['=x', 1, null, 'a,b'])).toBe(`'=x,1,,"a,b"`);
    expect(csvDocument(['名前', '件数'], [['@a', 2]])).toBe(`\uFEFF名前,件数\r\n'@a,2\r\n`);
  });
});
