import { z } from 'zod';
import { successSchema as ok, yenSchema as yen } from './common';

// ---------------------------------------------------------------- budget

export const BUDGET_ALERT_THRESHOLDS = [50, 80, 100] as const;

export const budgetSchema = z.object({
  monthly_limit: yen.nullable(),
  hard_stop: z.boolean(),
  /** This month's cost so far (tax included, as the invoice will show it). */
  spent_this_month: yen,
  alerts_sent: z.array(z.number().int()),
});

export type Budget = z.infer<typeof budgetSchema>;

export const budgetResponseSchema = ok(budgetSchema);

/** POST /console/v1/billing/budget: null limit removes the budget. */
export const budgetBodySchema = z.object({
  monthly_limit: z
    .number('予算は1〜100,000,000円の整数で入力してください')
    .int('予算は1〜100,000,000円の整数で入力してください')
    .min(1, '予算は1〜100,000,000円の整数で入力してください')
    .max(100_000_000, '予算は1〜100,000,000円の整数で入力してください')
    .nullable(),
  hard_stop: z.boolean(),
});
