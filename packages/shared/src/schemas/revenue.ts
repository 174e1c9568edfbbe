import { z } from 'zod';
import { successSchema as ok } from './common';
import { auditEntrySchema } from './users';

/*
 * Admin revenue and dashboard calls (the console specification's "Admin: Revenue", docs/billing.md "Administration").
 * Billed amounts are whole yen from the month's invoices; provider shares are yen with sen
 * (each dataset's share floored to the sen, exactly as the provider's own /revenue report).
 */

const yen = z.number().int();
const amount = z.number().describe('円(小数第2位まで)');

export const yearMonthQuerySchema = z.object({
  year_month: z
    .string({ error: '対象年月を YYYY-MM の形式で指定してください' })
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, '対象年月を YYYY-MM の形式で指定してください'),
});
export type YearMonthQuery = z.infer<typeof yearMonthQuerySchema>;

/** The money of one month: what its invoices billed and collected, and the providers' share. */
export const monthFiguresSchema = z.object({
  year_month: z.string(),
  invoices: z.number().int(),
  /** Σ subtotals of the month's invoices (before tax). */
  billed: yen,
  tax: yen,
  /** billed + tax. */
  total: yen,
  /** Σ of the providers' revenue for the month (their /revenue reports). */
  provider_share: amount,
  /** billed − provider_share. */
  platform_net: amount,
  /** Received on the month's invoices so far (payments, fees booked and credit applied). */
  collected: yen,
  /** Still due on the month's invoices. */
  outstanding: yen,
  /** Returned by credit notes (返還請求書) on the month's invoices, tax included; billed and tax stay the invoices' own. */
  credited: yen,
});
export type MonthFigures = z.infer<typeof monthFiguresSchema>;

export const platformRevenueSchema = z.object({
  figures: monthFiguresSchema,
  datasets: z.array(
    z.object({
      dataset_id: z.string(),
      dataset_name: z.string(),
      /** Revenue recipient (null: the platform). */
      provider_id: z.string().nullable(),
      searches: z.number().int(),
      /** Billed on the month's invoice lines for this dataset. */
      billed: yen,
      provider_share: amount,
    }),
  ),
});
export type PlatformRevenue = z.infer<typeof platformRevenueSchema>;
export const platformRevenueResponseSchema = ok(platformRevenueSchema);

export const providerRevenueRowSchema = z.object({
  provider_id: z.string(),
  email: z.string().nullable(),
  display_name: z.string().nullable(),
  searches: z.number().int(),
  /** Σ price × searches of the provider's datasets (yen with sen). */
  gross: amount,
  /** The provider's revenue (their /revenue report's total): what is payable to them. */
  share: amount,
  payable: amount,
});
export const providersRevenueSchema = z.object({ year_month: z.string(), providers: z.array(providerRevenueRowSchema), total_share: amount });
export type ProvidersRevenue = z.infer<typeof providersRevenueSchema>;
export const providersRevenueResponseSchema = ok(providersRevenueSchema);

export const providerRevenueDetailSchema = z.object({
  provider: z.object({ id: z.string(), email: z.string(), display_name: z.string().nullable(), account_type: z.string() }),
  months: z.array(
    z.object({
      year_month: z.string(),
      searches: z.number().int(),
      revenue: amount,
      datasets: z.array(z.object({ dataset_id: z.string(), dataset_name: z.string(), searches: z.number().int(), revenue: amount })),
    }),
  ),
});
export type ProviderRevenueDetail = z.infer<typeof providerRevenueDetailSchema>;
export const providerRevenueDetailResponseSchema = ok(providerRevenueDetailSchema);

/** GET /console/v1/admin/datasets/revenue/platform: the platform's own datasets in a month. */
export const platformDatasetsRevenueSchema = z.object({
  year_month: z.string(),
  total_revenue: amount,
  total_searches: z.number().int(),
  datasets: z.array(z.object({ dataset_id: z.string(), dataset_name: z.string(), searches: z.number().int(), revenue: amount })),
});
export const platformDatasetsRevenueResponseSchema = ok(platformDatasetsRevenueSchema);

export const adminDashboardSchema = z.object({
  /** The month whose invoices were issued most recently (the previous Japan-time month). */
  billed_month: monthFiguresSchema,
  /** The last 12 closed months, oldest first. */
  months: z.array(monthFiguresSchema),
  overdue: z.object({ count: z.number().int(), amount: yen }),
  /** Users to contact about a failed card payment (the rows of /admin/users?card_failed=1). */
  failed_card_payments: z.number().int(),
  pending_applications: z.number().int(),
  pending_transfers: z.number().int(),
  signups_this_month: z.array(z.object({ account_type: z.string(), count: z.number().int() })),
  searches_today: z.number().int(),
  searches_this_month: z.number().int(),
  recent_audit: z.array(auditEntrySchema),
  /** Settings missing for going live, as Japanese sentences naming the variables. */
  warnings: z.array(z.string()),
  as_of: z.string(),
});
export type AdminDashboard = z.infer<typeof adminDashboardSchema>;
export const adminDashboardResponseSchema = ok(adminDashboardSchema);
