import type { ApiKeyStatus } from '@poi/shared/schemas/api-keys';
import type { ApiKeyRow } from './api-keys.repository';

/** A key's state now: revoked and expired end it; a rotated key keeps working until its overlap ends. */
export function statusOf(key: ApiKeyRow, now = new Date()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (key.replacedBy) return 'rotating';
  return 'active';
}
