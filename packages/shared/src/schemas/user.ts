import { z } from 'zod';
import { ACCOUNT_TYPES, ROLES } from '../roles';
import { DISPLAY_NAME_MAX } from '../limits';
import { messages } from '../messages';

export const accountTypeSchema = z.enum(ACCOUNT_TYPES);
export const roleSchema = z.enum(ROLES);

/** The spec's User entity: id, email, display_name, role, account_type. */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
  role: roleSchema,
  account_type: accountTypeSchema,
});
export type User = z.infer<typeof userSchema>;

export const userResponseSchema = z.object({ success: z.literal(true), user: userSchema });
export type UserResponse = z.infer<typeof userResponseSchema>;

export const updateProfileBodySchema = z.object({
  display_name: z
    .string()
    .trim()
    .min(1, messages.displayNameRequired)
    .max(DISPLAY_NAME_MAX, messages.displayNameTooLong),
});
export type UpdateProfileBody = z.infer<typeof updateProfileBodySchema>;
