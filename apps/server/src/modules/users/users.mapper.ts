import type { AdminUser, User } from '@poi/shared/schemas/users';
import type { AdminUserRow, UserRow } from './users.repository';

/** The spec's User entity, fields picked explicitly. */
export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  display_name: row.displayName,
  role: row.role,
  account_type: row.accountType,
  created_at: row.createdAt.toISOString(),
});

/** A user as the admin screens see it: the User entity plus status, dates and billing links. */
export const toAdminUser = (row: AdminUserRow): AdminUser => ({
  ...toUser(row),
  status: row.status,
  status_reason: row.statusReason,
  created_at: row.createdAt.toISOString(),
  last_login_at: row.lastLoginAt ? row.lastLoginAt.toISOString() : null,
  corporate_account_id: row.corporateAccountId,
  corporate_role: row.corporateRole,
  payment_method: row.paymentMethod,
});
