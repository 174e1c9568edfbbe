/**
 * CSV for downloads. The cells and documents come from the shared writer (@poi/shared/csv), the
 * one the console uses for the CSV files it builds itself, so every CSV the product writes
 * neutralises spreadsheet formulas the same way.
 */
export { csvCell, csvDocument, csvLine } from '@poi/shared/csv';

/** Content-Disposition of a download with a Japanese name and an ASCII fallback. */
export function attachment(asciiName: string, japaneseName: string): string {
  return `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(japaneseName)}`;
}
