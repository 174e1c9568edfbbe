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
});
