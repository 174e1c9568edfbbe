import type { User } from '@poi/shared/schemas/users';
import type { UserRow } from './users.repository';

/** The spec's User entity, fields picked explicitly. */
export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  display_name: row.displayName,
  role: row.role,
  account_type: row.accountType,
});
