import { z } from 'zod';
import { successSchema as ok } from './common';

/*
 * Leaving a plan (docs/billing.md "Cancel and downgrade"): an individual's cancellation at the end
 * of the Japan-time month (back to trial), and a corporate owner's cancellation request.
 */

export const scheduledPlanChangeSchema = z.object({
  to_type: z.enum(['trial']),
  /** The first instant of the new type: 00:00 Japan time on the 1st of the next month. */
  effective_at: z.string(),
  scheduled_at: z.string(),
});

export const corporateCancellationRequestSchema = z.object({
  requested_at: z.string(),
  reason: z.string().nullable(),
});

/** GET /console/v1/billing/plan: the caller's plan and what they may do to leave it. */
export const planStateSchema = z.object({
  account_type: z.string(),
  /** An individual without a scheduled change may schedule one. */
  can_cancel: z.boolean(),
  scheduled_change: scheduledPlanChangeSchema.nullable(),
  /** Set for members of a corporate account. */
  corporate: z
    .object({
      is_owner: z.boolean(),
      cancellation_request: corporateCancellationRequestSchema.nullable(),
    })
    .nullable(),
});

export type PlanState = z.infer<typeof planStateSchema>;

export const planStateResponseSchema = ok(planStateSchema);

/** POST /console/v1/corporate/cancellation-request. */
export const corporateCancellationBodySchema = z.object({
  reason: z.string().trim().max(500, '理由は500文字以内で入力してください').optional(),
});

export type CorporateCancellationBody = z.infer<typeof corporateCancellationBodySchema>;

/** GET /console/v1/admin/corporate/cancellation-requests: requests of accounts not yet ended (suspended). */
export const adminCancellationRequestSchema = z.object({
  id: z.string(),
  corporate_account_id: z.string(),
  company_name: z.string(),
  account_status: z.enum(['pending', 'active', 'suspended', 'rejected']),
  requested_by_email: z.string().nullable(),
  reason: z.string().nullable(),
  requested_at: z.string(),
});

export type AdminCancellationRequest = z.infer<typeof adminCancellationRequestSchema>;

export const adminCancellationRequestsResponseSchema = ok(z.object({ requests: z.array(adminCancellationRequestSchema) }));
