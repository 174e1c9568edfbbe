import { userResponseSchema, userSchema, type User } from '@poi/shared/schemas/users';
import { apiClient } from '../lib/api-client';
import type { SessionApi } from '../lib/auth-store';

/** The start-up rules' server side (lib/auth-store initAuth), loaded only for a stored session. */
export const sessionApi: SessionApi = {
  parseUser(value: unknown): User | null {
    const parsed = userSchema.safeParse(value);
    return parsed.success ? parsed.data : null;
  },
  async fetchCurrentUser(): Promise<User> {
    return userResponseSchema.parse((await apiClient.get('/console/v1/user')).data).user;
  },
};
