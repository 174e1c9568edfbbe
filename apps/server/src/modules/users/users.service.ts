import type { AccountType } from '@poi/shared/roles';
import { messages } from '@poi/shared/messages';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import { revokeUserSessions } from '../auth/auth.repository';
import * as repo from './users.repository';

export interface UsersService {
  updateProfile(userId: string, displayName: string): Promise<repo.UserRow>;
  list(filter: repo.UserListFilter): Promise<{ rows: repo.UserRow[]; total: number }>;
  get(id: string): Promise<repo.UserRow>;
  changeType(id: string, accountType: AccountType): Promise<repo.UserRow>;
  suspend(actorId: string, id: string): Promise<repo.UserRow>;
  activate(id: string): Promise<repo.UserRow>;
}

export function createUsersService(deps: { db: Db; changes?: ChangeFeed }): UsersService {
  const { db, changes } = deps;
  const found = (row: repo.UserRow | undefined): repo.UserRow => {
    if (!row) throw new AppError('NOT_FOUND', messages.userNotFound);
    return row;
  };
  /** Account type and status decide what a user's sessions and API keys may do: caches must forget them. */
  const changed = (row: repo.UserRow): repo.UserRow => {
    changes?.changed('user', row.id);
    return row;
  };
  return {
    async updateProfile(userId, displayName) {
      return changed(found(await repo.updateDisplayName(db, userId, displayName)));
    },
    list: (filter) => repo.listUsers(db, filter),
    async get(id) {
      return found(await repo.findUserById(db, id));
    },
    async changeType(id, accountType) {
      return changed(found(await repo.updateAccountType(db, id, accountType)));
    },
    async suspend(actorId, id) {
      if (actorId === id) throw new AppError('BAD_REQUEST', messages.cannotSuspendSelf);
      // Suspension and the end of every session of the user happen together or not at all.
      const row = await db.transaction(async (tx) => {
        const suspended = found(await repo.updateStatus(tx, id, 'suspended'));
        await revokeUserSessions(tx, id);
        return suspended;
      });
      return changed(row);
    },
    async activate(id) {
      return changed(found(await repo.updateStatus(db, id, 'active')));
    },
  };
}
