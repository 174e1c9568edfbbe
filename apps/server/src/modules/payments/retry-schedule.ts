import { BILLING_UTC_OFFSET_HOURS } from '@poi/shared/limits';

/**
 * Card retries (docs/billing.md "Card payments"): after the charge on issue fails, it is tried again on days 3, 5 and
 * 7 after the issue date (Japan time, at 09:00 JST); after the 4th failure the invoice is overdue.
 */
export const RETRY_DAYS = [3, 5, 7] as const;
export const MAX_CARD_ATTEMPTS = RETRY_DAYS.length + 1;
const RETRY_HOUR_JST = 9;

/** When to try again after `failedAttempts` failures (1-based), or null: no more retries (overdue). */
export function nextRetryAt(issueDate: string, failedAttempts: number): Date | null {
  const days = RETRY_DAYS[failedAttempts - 1];
  if (days === undefined) return null;
  const [y, m, d] = issueDate.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days, RETRY_HOUR_JST - BILLING_UTC_OFFSET_HOURS));
}
