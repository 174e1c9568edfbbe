/**
 * CSV for downloads. The cells and documents come from the shared writer (@poi/shared/csv), the
 * one the console uses for the CSV files it builds itself, so every CSV the product writes
 * neutralises spreadsheet formulas the same way.
 */
export { csvCell, csvDocument } from '@poi/shared/csv';
