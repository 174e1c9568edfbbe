import { messages } from '@poi/shared/messages';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import * as repo from './users.repository';

export interface UsersService {
  updateProfile(userId: string, displayName: string): Promise<repo.UserRow>;
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
  };
}
