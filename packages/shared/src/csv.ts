/**
 * CSV as every part of the product writes it (server downloads and the console's own CSV files):
 * RFC 4180 quoting, CRLF line ends, UTF-8 with a BOM so spreadsheets read Japanese right, and
 * cells a spreadsheet could run as a formula neutralised. One helper, so no writer can forget it.
 */

/**
 * Cells a spreadsheet could run as a formula (CSV injection) start with one of these, in half or
 * full width (Excel reads ＝ as =), or with tab / CR; a cell starting with ' gets the prefix too,
 * so the import can always remove exactly one leading '.
 */
const NEEDS_PREFIX = /^[=+\-@＝＋－＠\t\r']/;

export type CsvValue = string | number | null | undefined;

/**
 * A CSV cell. Text matching NEEDS_PREFIX is prefixed with ', which Excel shows as a text marker
 * and the server's import removes again (import-parser `unprotect`): export → import gives back
 * every byte. Numbers are written as they are; null and undefined as an empty cell.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = NEEDS_PREFIX.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One CSV line (no line end). */
export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',');
}

/** A whole CSV document: BOM, header row, rows, each line ending in CRLF. */
export function csvDocument(headers: readonly string[], rows: ReadonlyArray<readonly CsvValue[]>): string {
  return `\uFEFF${[csvLine(headers), ...rows.map(csvLine)].join('\r\n')}\r\n`;
}
