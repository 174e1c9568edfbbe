import { z } from 'zod';
import { isStorableText } from '../../lib/storable-text';

/*
 * The shapes of the webhook events acted on, checked before anything is read from them
 * (odd input gets a 4xx, never a 5xx). The signature only says Stripe (or someone with the secret) sent the bytes, not
 * that they are what the SDK's types promise: `[1,2,3]`, an id with a lone surrogate or an amount
 * as a string would otherwise reach the database and answer 500, which Stripe retries for days.
 *
 * Two answers, decided by how much of the body can be trusted (docs/resilience.md "Odd input gets
 * a 4xx"): a body that is not an event envelope at all is a 400 (nothing identifies it, so it
 * cannot even be remembered); an envelope of a type acted on whose object has the wrong shape
 * is acknowledged and ignored (200, logged, nothing stored), because retrying cannot change it.
 */

/** Stripe's ids are short ASCII (`evt_…`, `pi_…`); 255 bounds what we store and log. */
const stripeId = z.string().regex(/^[A-Za-z0-9_]{1,255}$/);
/** Our own ids put into metadata are UUIDs; anything else is not ours (and would fail a uuid column). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const storable = z.string().min(1).max(255).refine(isStorableText);

/** What every event must be: anything else is refused with 400 before it is looked at. */
export const eventEnvelopeSchema = z.object({
  id: storable,
  type: storable,
  created: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  // z.object refuses arrays and null: data.object must be an object.
  data: z.object({ object: z.looseObject({}) }),
});
export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

/** Metadata values are strings; the ids we put there (invoice, user, billing account) are UUIDs. */
const metadataSchema = z
  .record(z.string(), z.string())
  .refine((m) => ['invoice_id', 'user_id', 'billing_account_id'].every((k) => m[k] === undefined || GUID.test(m[k])), 'metadata ids are not UUIDs');

/** The fields of a PaymentIntent the bookings read; JPY amounts are whole yen. */
export const paymentIntentSchema = z.looseObject({
  id: stripeId,
  status: z.string(),
  currency: z.string(),
  amount: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  amount_received: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  metadata: metadataSchema,
  last_payment_error: z.looseObject({ code: z.string().nullish(), decline_code: z.string().nullish() }).nullish(),
});

/** A PaymentIntent as the bookings read it: satisfied by the SDK's own type and by a checked event object. */
export interface CardIntent {
  id: string;
  status: string;
  currency: string;
  amount: number;
  amount_received?: number;
  metadata: Record<string, string>;
  last_payment_error?: { code?: string | null; decline_code?: string | null } | null;
}

const expandable = z.union([stripeId, z.looseObject({ id: stripeId })]);

/** The fields of a completed Checkout Session the webhook reads. */
export const checkoutSessionSchema = z.looseObject({
  id: stripeId,
  mode: z.string(),
  metadata: metadataSchema.nullish(),
  customer: expandable.nullish(),
  setup_intent: expandable.nullish(),
  payment_intent: z.union([stripeId, paymentIntentSchema]).nullish(),
});

/** The schema of each event type acted on; other types are acknowledged without a look inside. */
export const ACTED_ON: Record<string, z.ZodType> = {
  'checkout.session.completed': checkoutSessionSchema,
  'payment_intent.succeeded': paymentIntentSchema,
  'payment_intent.payment_failed': paymentIntentSchema,
};

/** The object's id to remember with the event, when it is one we could store. */
export function objectIdOf(object: Record<string, unknown>): string | null {
  const parsed = stripeId.safeParse(object.id);
  return parsed.success ? parsed.data : null;
}
