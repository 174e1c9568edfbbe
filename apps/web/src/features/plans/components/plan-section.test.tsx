import { describe, expect, it } from 'vitest';
import { cancellationDates, cancellationMessage } from './plan-section';

describe('the cancellation dialog', () => {
  it('states the last day of the plan and the first day of trial in Japan time', () => {
    const effectiveAt = new Date('2026-11-30T15:00:00.000Z'); // 2026-12-01 00:00 JST
    expect(cancellationDates(effectiveAt)).toEqual({ lastDay: '2026年11月30日', firstDay: '2026年12月1日' });
    expect(cancellationMessage(effectiveAt)).toBe(
      '2026年11月30日 23:59 まで現在のプランをご利用いただけます。12月1日からトライアルになります。当月分のご利用料金は翌月1日に請求されます。提供済みの検索の返金はありません。',
    );
    expect(cancellationDates(new Date('2027-01-31T15:00:00.000Z'))).toEqual({ lastDay: '2027年1月31日', firstDay: '2027年2月1日' });
  });
});
