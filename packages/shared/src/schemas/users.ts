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
  /** When the account was created (ISO 8601): /usage offers the months from then on. Optional: a session stored before it was added has none. */
  created_at: z.string().optional(),
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
const LIST_LIMIT_MESSAGE = '件数は1〜100の整数で指定してください';
const LIST_OFFSET_MESSAGE = '開始位置は0以上の整数で指定してください';
/** `limit` of the admin lists: 1–100, 20 when absent; an empty value is an error, as elsewhere. */
export const listLimitSchema = z.preprocess(
  (v) => (v === undefined ? 20 : v),
  z.coerce.number(LIST_LIMIT_MESSAGE).int(LIST_LIMIT_MESSAGE).min(1, LIST_LIMIT_MESSAGE).max(100, LIST_LIMIT_MESSAGE),
);
export const listOffsetSchema = z.preprocess(
  (v) => (v === undefined ? 0 : v),
  z.coerce.number(LIST_OFFSET_MESSAGE).int(LIST_OFFSET_MESSAGE).min(0, LIST_OFFSET_MESSAGE).max(10_000_000, LIST_OFFSET_MESSAGE),
);
/** A 'YYYY-MM-DD' Japan-time day filter; an empty value means no filter. */
export const optionalDayFilterSchema = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, '日付は YYYY-MM-DD の形式で指定してください')
    .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), '存在しない日付です')
    .optional(),
);
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);

export const ADMIN_USER_SORTS = ['created_at', 'email', 'display_name', 'last_login_at'] as const;
export type AdminUserSort = (typeof ADMIN_USER_SORTS)[number];
export const USER_PAYMENT_FILTERS = ['card', 'bank_transfer', 'none'] as const;
export const USER_STATUSES = ['active', 'suspended'] as const;

/**
 * GET /console/v1/admin/users (and users.csv): `q` finds an e-mail or display name containing it
 * (width and case folded) or the user with that id; filters combine; the order ends with the id,
 * so offset paging never repeats or skips a user. `keyword` is the older name of `q` (the
 * dataset dialog's provider picker).
 */
export const adminUserListQuerySchema = z.object({
  q: z.preprocess(emptyAsUndefined, z.string().trim().max(100, '検索語は100文字以内で入力してください').optional()),
  keyword: z.preprocess(emptyAsUndefined, z.string().trim().max(100, '検索語は100文字以内で入力してください').optional()),
  account_type: z.preprocess(emptyAsUndefined, accountTypeSchema.optional()),
  role: z.preprocess(emptyAsUndefined, z.enum(ROLES, { error: '権限は user か admin で指定してください' }).optional()),
  status: z.preprocess(emptyAsUndefined, z.enum(USER_STATUSES, { error: '状態は active か suspended で指定してください' }).optional()),
  payment_method: z.preprocess(
    emptyAsUndefined,
    z.enum(USER_PAYMENT_FILTERS, { error: '支払方法は card、bank_transfer、none のいずれかで指定してください' }).optional(),
  ),
  /** 1: only the users to contact about a failed card payment (the admin dashboard's count links here). */
  card_failed: z.preprocess(emptyAsUndefined, z.literal('1', { error: 'カード決済の失敗の絞り込みは 1 で指定してください' }).optional()),
  created_from: optionalDayFilterSchema,
  created_to: optionalDayFilterSchema,
  sort: z.preprocess(
    emptyAsUndefined,
    z.enum(ADMIN_USER_SORTS, { error: '並び順は created_at、email、display_name、last_login_at のいずれかで指定してください' }).default('created_at'),
  ),
  order: z.preprocess(emptyAsUndefined, z.enum(['asc', 'desc'], { error: '昇順・降順は asc か desc で指定してください' }).default('desc')),
  limit: listLimitSchema,
  offset: listOffsetSchema,
});
export type AdminUserListQuery = z.input<typeof adminUserListQuerySchema>;
export type AdminUserListFilter = z.output<typeof adminUserListQuerySchema>;
export const adminUserCsvQuerySchema = adminUserListQuerySchema.omit({ limit: true, offset: true });

/** A user as the admin screens see it: the User entity plus status, dates and how they pay. */
export const adminUserSchema = userSchema.extend({
  status: z.enum(USER_STATUSES),
  status_reason: z.string().nullable(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
  corporate_account_id: z.string().nullable(),
  corporate_role: z.enum(['owner', 'billing', 'member']).nullable(),
  /** The billing account's payment method (the corporate account's for members); null = none yet. */
  payment_method: z.enum(['card', 'bank_transfer']).nullable(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

export const adminUserListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ users: z.array(adminUserSchema), total: z.number().int() }),
});
export type AdminUserList = z.infer<typeof adminUserListResponseSchema>['data'];

export const adminUserResponseSchema = z.object({ success: z.literal(true), data: z.object({ user: adminUserSchema }) });

/** One audit row as the admin screens show it (GET /admin/audit-logs, and per entity). */
export const auditEntrySchema = z.object({
  id: z.number().int(),
  occurred_at: z.string(),
  actor_id: z.string().nullable(),
  actor_email: z.string().nullable(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  ip: z.string().nullable(),
  request_id: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** GET /console/v1/admin/users/{id}: the user, this month's usage and cost, keys, invoices, audit trail. */
export const adminUserDetailSchema = z.object({
  user: adminUserSchema,
  usage_this_month: z.object({
    year_month: z.string(),
    searches: z.number().int(),
    free_searches: z.number().int(),
    /** Usage charges so far in yen, before tax (as /billing's estimate computes them). */
    amount: z.number(),
  }),
  api_keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      prefix: z.string(),
      created_at: z.string(),
      last_used_at: z.string().nullable(),
      expires_at: z.string().nullable(),
      revoked_at: z.string().nullable(),
    }),
  ),
  invoices: z.array(
    z.object({
      id: z.string(),
      number: z.string().nullable(),
      year_month: z.string(),
      status: z.string(),
      total: z.number().int(),
      /** Σ of its credit notes (適格返還請求書). */
      credited: z.number().int(),
      due_date: z.string().nullable(),
    }),
  ),
  audit: z.array(auditEntrySchema),
});
export type AdminUserDetail = z.infer<typeof adminUserDetailSchema>;
export const adminUserDetailResponseSchema = z.object({ success: z.literal(true), data: adminUserDetailSchema });

const reasonSchema = z
  .string({ error: '理由を入力してください' })
  .trim()
  .min(1, '理由を入力してください')
  .max(500, '理由は500文字以内で入力してください');
export const adminReasonBodySchema = z.object({ reason: reasonSchema });
export type AdminReasonBody = z.infer<typeof adminReasonBodySchema>;
/** Account type, and optionally the admin role (granting or removing it); the reason is required. */
export const changeAccountTypeBodySchema = z.object({
  account_type: accountTypeSchema,
  role: z.enum(ROLES, { error: '権限は user か admin で指定してください' }).optional(),
  reason: reasonSchema,
});
export type ChangeAccountTypeBody = z.infer<typeof changeAccountTypeBodySchema>;

/** GET /console/v1/admin/audit-logs: newest first, filters combine. */
export const auditLogQuerySchema = z.object({
  actor: z.preprocess(emptyAsUndefined, z.string().trim().max(254).optional()),
  target_type: z.preprocess(emptyAsUndefined, z.string().trim().max(50).optional()),
  target_id: z.preprocess(emptyAsUndefined, z.string().trim().max(100).optional()),
  action: z.preprocess(emptyAsUndefined, z.string().trim().max(100).optional()),
  from: optionalDayFilterSchema,
  to: optionalDayFilterSchema,
  limit: listLimitSchema,
  offset: listOffsetSchema,
});
export type AuditLogQuery = z.input<typeof auditLogQuerySchema>;
export type AuditLogFilter = z.output<typeof auditLogQuerySchema>;
export const auditLogListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ entries: z.array(auditEntrySchema), total: z.number().int() }),
});
export type AuditLogList = z.infer<typeof auditLogListResponseSchema>['data'];

export const userIdParamsSchema = z.object({ id: z.uuid({ error: 'ユーザーIDが正しくありません' }) });
