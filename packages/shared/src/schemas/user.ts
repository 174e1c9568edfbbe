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

/** Admin user list query (the dataset editor/recipient pickers use account_type and limit=100). */
export const adminUserListQuerySchema = z.object({
  account_type: accountTypeSchema.optional(),
  keyword: z.string().trim().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type AdminUserListQuery = z.input<typeof adminUserListQuerySchema>;

/** A user as the admin screens see it: the User entity plus status and dates. */
export const adminUserSchema = userSchema.extend({
  status: z.enum(['active', 'suspended']),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

export const adminUserListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ users: z.array(adminUserSchema), total: z.number().int() }),
});

export const adminUserResponseSchema = z.object({ success: z.literal(true), data: z.object({ user: adminUserSchema }) });

export const changeAccountTypeBodySchema = z.object({ account_type: accountTypeSchema });

export const userIdParamsSchema = z.object({ id: z.uuid({ error: 'ユーザーIDが正しくありません' }) });
