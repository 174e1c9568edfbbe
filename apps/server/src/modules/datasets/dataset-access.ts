import { isAdmin, isPlatformAdmin } from '@poi/shared/roles';
import type { CurrentUser } from '../../plugins/auth';
import type { DatasetRow } from './datasets.repository';

export const roleOf = (u: CurrentUser) => ({ role: u.role, account_type: u.accountType });

/** Managers: the creator, the assigned editor, platform admins and admins (docs/architecture.md). */
export function canManageDataset(user: CurrentUser, dataset: Pick<DatasetRow, 'createdBy' | 'assignedUserId'>): boolean {
  return (
    isAdmin(roleOf(user)) ||
    isPlatformAdmin(roleOf(user)) ||
    dataset.createdBy === user.id ||
    dataset.assignedUserId === user.id
  );
}
