import { z } from 'zod';

/** Error envelope of every failing call (docs/architecture.md "Errors and the API envelope"). */
export const apiErrorSchema = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    request_id: z.string().optional(),
  }),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/** `{ success: true, data }`, the envelope of every successful console answer. */
export const successSchema = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** Whole yen (invoice amounts). */
export const yenSchema = z.number().int().describe('円(整数)');
/** Yen with up to 2 decimals (unit prices). */
export const unitPriceSchema = z.number().describe('円(小数第2位まで)');

export const messageResponseSchema = z.object({ success: z.literal(true), message: z.string() });

/** Error codes; each maps to one HTTP status in the server's error handler. */
export const ERROR_CODES = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  /** The billing account's monthly budget with a hard stop is reached (public API). */
  BUDGET_EXCEEDED: 402,
  FORBIDDEN: 403,
  ACCOUNT_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

