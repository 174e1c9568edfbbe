import { csvLine as line } from '@poi/shared/csv';
import type { UsageSummary } from '@poi/shared/schemas/usage';

const yen = (n: number) => n.toFixed(2);

/**
 * The month's usage as CSV for spreadsheets: a BOM so Excel reads the Japanese as UTF-8, CRLF
 * line ends, one section per view (daily, by key, by dataset). Cells go through the shared CSV
 * writer: a dataset or key named like a formula (=HYPERLINK(…)) stays text in a spreadsheet.
 */
export function usageCsv(summary: UsageSummary): string {
  const rows: string[] = [
    line(['対象月', summary.year_month]),
    line(['検索回数', summary.searches]),
    line(['料金(円)', yen(summary.amount)]),
    '',
    line(['日付', '検索回数', '料金(円)']),
    ...summary.daily.map((d) => line([d.date, d.searches, yen(d.amount)])),
    '',
    line(['APIキー', 'キー', '検索回数', '料金(円)']),
    ...summary.by_key.map((k) => line([k.name, k.prefix, k.searches, yen(k.amount)])),
    '',
    line(['データセット', 'データセットID', '検索回数', '料金(円)']),
    ...summary.by_dataset.map((d) => line([d.dataset_name, d.dataset_id, d.searches, yen(d.amount)])),
  ];
  return `\uFEFF${rows.join('\r\n')}\r\n`;
}
