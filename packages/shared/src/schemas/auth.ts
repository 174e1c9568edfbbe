import { z } from 'zod';
import { EMAIL_MAX, MAGIC_TOKEN_LENGTH, OTP_LENGTH } from '../limits';
import { messages } from '../messages';
import { safeRedirect } from '../redirect';
import { userSchema } from './users';

export { safeRedirect };

/** The spec's "simple pattern" for an e-mail address. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const emailSchema = z
  .string({ error: messages.emailRequired })
  .trim()
  .min(1, messages.emailRequired)
  .max(EMAIL_MAX, messages.emailInvalid)
  .regex(EMAIL_PATTERN, messages.emailInvalid)
  .transform((v) => v.toLowerCase());

export const otpCodeSchema = z
  .string({ error: messages.otpRequired })
  .min(1, messages.otpRequired)
  .regex(/^\d*$/, messages.otpDigits)
  .length(OTP_LENGTH, messages.otpLength);

export const magicTokenSchema = z
  .string()
  .regex(new RegExp(`^[a-z0-9]{${MAGIC_TOKEN_LENGTH}}$`), messages.magicTokenInvalid);

export const requestOtpBodySchema = z.object({
  email: emailSchema,
  /** Where the magic link should land after sign-in; only same-site paths survive. */
  redirect: z
    .string()
    .max(2048)
    .optional()
    .transform((v) => (v === undefined ? undefined : safeRedirect(v))),
});
export type RequestOtpBody = z.input<typeof requestOtpBodySchema>;

export const requestOtpResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  /** Seconds until another code may be requested for this address. */
  resend_after: z.number().int(),
});
export type RequestOtpResponse = z.infer<typeof requestOtpResponseSchema>;

export const verifyOtpBodySchema = z.object({ email: emailSchema, code: otpCodeSchema });
export type VerifyOtpBody = z.input<typeof verifyOtpBodySchema>;

export const magicParamsSchema = z.object({ token: magicTokenSchema });

/** The spec's Login response: success, token, user, message. */
export const loginResponseSchema = z.object({
  success: z.literal(true),
  token: z.string(),
  user: userSchema,
  message: z.string(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;
