/**
 * CSV for downloads (RFC 4180, CRLF, UTF-8 with a BOM so spreadsheets read Japanese right).
 */

/**
 * Cells a spreadsheet could run as a formula (CSV injection) start with one of these, in half or
 * full width (Excel reads ＝ as =), or with tab / CR; a cell starting with ' gets the prefix too,
 * so the import can always remove exactly one leading '.
 */
const NEEDS_PREFIX = /^[=+\-@＝＋－＠\t\r']/;

/**
 * A CSV cell. Text in NEEDS_PREFIX is prefixed with ', which Excel shows as a text marker and the
 * import removes again (import-parser `unprotect`): export → import gives back every byte.
 * Numbers are written as they are.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = NEEDS_PREFIX.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A whole CSV document: BOM, header row, rows, each line ending in CRLF. */
export function csvDocument(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | null | undefined>>): string {
  return `\uFEFF${[headers.map(csvCell).join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\r\n')}\r\n`;
}

/** Content-Disposition of a download with a Japanese name and an ASCII fallback. */
export function attachment(asciiName: string, japaneseName: string): string {
  return `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(japaneseName)}`;
}
