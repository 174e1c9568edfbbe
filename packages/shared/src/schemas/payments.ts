import { z } from 'zod';
import { successSchema as ok } from './common';

export const cardSchema = z.object({ brand: z.string(), last4: z.string(), exp_month: z.number().int(), exp_year: z.number().int() });

export type Card = z.infer<typeof cardSchema>;

// ---------------------------------------------------------------- card (Stripe Checkout in setup mode)

export const checkoutPurposeSchema = z.enum(['card', 'upgrade_individual', 'corporate']);

export type CheckoutPurpose = z.infer<typeof checkoutPurposeSchema>;

/** POST /console/v1/payment-method/checkout → redirect the browser to `url`. */
export const checkoutBodySchema = z.object({ purpose: checkoutPurposeSchema });

export const checkoutResponseSchema = ok(z.object({ url: z.string() }));

/** POST /console/v1/payment-method/complete: verifies the session and saves the card; safe to repeat. */
export const completeBodySchema = z.object({ session_id: z.string().trim().min(1, 'セッションIDが指定されていません').max(255) });

export const completeResultSchema = z.object({
  card: cardSchema,
  purpose: checkoutPurposeSchema,
  account_type: z.string(),
  /** Where the console goes next: '/billing' or '/upgrade'. */
  next: z.string(),
});

export type CompleteResult = z.infer<typeof completeResultSchema>;

export const completeResponseSchema = ok(completeResultSchema);

// ---------------------------------------------------------------- paying an invoice on demand

/**
 * POST /console/v1/billing/invoices/:id/pay → redirect the browser to `url` (Stripe Checkout in
 * payment mode for `amount`, what remains, in whole yen). The same URL while that session is open.
 */
export const payInvoiceResultSchema = z.object({ url: z.string(), amount: z.number().int(), attempt: z.number().int() });

export type PayInvoiceResult = z.infer<typeof payInvoiceResultSchema>;

export const payInvoiceResponseSchema = ok(payInvoiceResultSchema);
