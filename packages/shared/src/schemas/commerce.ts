import { z } from 'zod';
import { successSchema as ok } from './common';

// ---------------------------------------------------------------- /commerce

/** GET /console/v1/commerce (public): the legal notice's configured items. */
export const commerceSchema = z.object({
  /** Every required ISSUER_* item is configured. */
  complete: z.boolean(),
  missing: z.array(z.string()),
  seller: z.string().nullable(),
  representative: z.string().nullable(),
  address: z.string().nullable(),
  phone: z.string().nullable(),
  phone_hours: z.string().nullable(),
  email: z.string().nullable(),
  registration_number: z.string().nullable(),
  bank_account: z.string().nullable(),
});

export type Commerce = z.infer<typeof commerceSchema>;

export const commerceResponseSchema = ok(commerceSchema);
