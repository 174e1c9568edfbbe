import type { ApiKey } from '@poi/shared/schemas/api-keys';
import type { ApiKeyRow } from './api-keys.repository';
import { statusOf } from './key-status';

export const toApiKey = (k: ApiKeyRow, now = new Date()): ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  status: statusOf(k, now),
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
  allowed_ips: k.allowedIps,
  allowed_referrers: k.allowedReferrers,
  replaced_by: k.replacedBy,
});
