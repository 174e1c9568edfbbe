import { randomUUID } from 'node:crypto';
import { dayOf, monthRange } from '@poi/shared/billing-time';
import type { UsageEvent } from '../../src/modules/usage/usage.repository';

/** A usage event as the meter records it: an individual's paid search on no dataset at ¥0, with `fields` on top. */
export function usageEvent(userId: string, occurredAt: Date, fields: Partial<UsageEvent> = {}): UsageEvent {
  return {
    requestId: randomUUID(),
    occurredAt,
    day: dayOf(occurredAt),
    userId,
    apiKeyId: '00000000-0000-4000-8000-000000000001',
    accountType: 'individual',
    pricingVersionId: 1,
    datasetIds: [],
    datasetPricesSen: [],
    datasetSharesBp: [],
    datasetRecipientIds: [],
    baseFeeSen: 0,
    amountSen: 0,
    free: false,
    ...fields,
  };
}

/** n instants spread evenly over a Japan-time month (the middle of each of n equal slices). */
export function instantsOverMonth(yearMonth: string, n: number): Date[] {
  const { start, end } = monthRange(yearMonth);
  const span = end.getTime() - start.getTime();
  return Array.from({ length: n }, (_, i) => new Date(start.getTime() + Math.floor(((i + 0.5) * span) / n)));
}
