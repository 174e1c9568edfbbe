import { describe, expect, it } from 'vitest';
import type { UsageSummary } from '@poi/shared/schemas/usage';
import { usageCsv } from './usage-csv';

const summary: UsageSummary = {
  year_month: '2026-11',
  searches: 3,
  amount: 1.3,
  free_searches: { limit: 1000, used: 3, remaining: 997 },
  base_fee: 0.1,
  active_keys: 1,
  daily: [
    { date: '2026-11-01', searches: 0, amount: 0 },
    { date: '2026-11-02', searches: 3, amount: 1.3 },
  ],
  by_key: [{ api_key_id: 'k', name: '本番, "メイン"', prefix: 'poi_live_abcdef', searches: 3, amount: 1.3 }],
  by_dataset: [{ dataset_id: 'd', dataset_name: '東京のカフェ', searches: 3, amount: 1.3 }],
  as_of: '2026-11-02T00:00:00.000Z',
};

describe('usageCsv', () => {
  it('writes a BOM, CRLF lines, two-decimal yen and quotes where needed', () => {
    const csv = usageCsv(summary);
    expect(csv.startsWith('\uFEFF対象月,2026-11\r\n')).toBe(true);
    expect(csv).toContain('\r\n2026-11-02,3,1.30\r\n');
    expect(csv).toContain('"本番, ""メイン""",poi_live_abcdef,3,1.30');
    expect(csv).toContain('東京のカフェ,d,3,1.30\r\n');
  });

  it('neutralises a formula in a dataset or key name, as the server writes its CSVs', () => {
    const csv = usageCsv({
      ...summary,
      by_key: [{ api_key_id: 'k', name: '@SUM(1+1)*cmd', prefix: 'poi_live_abcdef', searches: 3, amount: 1.3 }],
      by_dataset: [{ dataset_id: 'd', dataset_name: '=HYPERLINK("http://x")', searches: 3, amount: 1.3 }],
    });
    expect(csv).toContain(`\r\n"'=HYPERLINK(""http://x"")",d,3,1.30\r\n`);
    expect(csv).toContain(`\r\n'@SUM(1+1)*cmd,poi_live_abcdef,3,1.30\r\n`);
    // No line of the file starts a cell with a live formula.
    for (const row of csv.split('\r\n')) expect(row.split(',')[0]).not.toMatch(/^"?[=+@]/);
  });
});
