import { z } from 'zod';
import { yearMonthOf } from '../billing-time';

export const yearMonthSchema = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, '年月は YYYY-MM の形式で指定してください')
  .refine((v) => v >= '2000-01' && v <= '2999-12', '年月は YYYY-MM の形式で指定してください');

/** `?year_month=YYYY-MM`, defaulting to the current month in Japan time. */
export const yearMonthQuerySchema = z.object({
  // Optional on input (the document must not mark it required), the current month on output.
  year_month: z.preprocess((v) => (v === '' ? undefined : v), yearMonthSchema.optional()).transform((v) => v ?? yearMonthOf()),
});

const amount = z.number().describe('円(小数第2位まで)');

export const usageSummarySchema = z.object({
  year_month: z.string(),
  searches: z.number().int(),
  amount,
  free_searches: z.object({ limit: z.number().int(), used: z.number().int(), remaining: z.number().int() }),
  base_fee: amount,
  active_keys: z.number().int(),
  daily: z.array(z.object({ date: z.string(), searches: z.number().int(), amount })),
  by_key: z.array(z.object({ api_key_id: z.string(), name: z.string(), prefix: z.string(), searches: z.number().int(), amount })),
  by_dataset: z.array(z.object({ dataset_id: z.string(), dataset_name: z.string(), searches: z.number().int(), amount })),
  /** When the figures were read: they include every search up to the last flush (at most a second before). */
  as_of: z.string(),
});
export type UsageSummary = z.infer<typeof usageSummarySchema>;
export const usageSummaryResponseSchema = z.object({ success: z.literal(true), data: usageSummarySchema });

export const revenueDatasetRowSchema = z.object({
  dataset_id: z.string(),
  dataset_name: z.string(),
  searches: z.number().int(),
  revenue: amount,
});

/** Provider revenue report. */
export const revenueReportSchema = z.object({
  year_month: z.string(),
  total_revenue: amount,
  total_searches: z.number().int(),
  dataset_count: z.number().int(),
  datasets: z.array(revenueDatasetRowSchema),
});
export type RevenueReport = z.infer<typeof revenueReportSchema>;
export const revenueReportResponseSchema = z.object({ success: z.literal(true), data: revenueReportSchema });

export const datasetRevenueSchema = revenueDatasetRowSchema.extend({
  year_month: z.string(),
  daily: z.array(z.object({ date: z.string(), searches: z.number().int(), revenue: amount })),
});
export type DatasetRevenue = z.infer<typeof datasetRevenueSchema>;
export const datasetRevenueResponseSchema = z.object({ success: z.literal(true), data: datasetRevenueSchema });
