import { endOfDay } from '@poi/shared/billing-time';
import { API_KEY_ROTATION_OVERLAP_HOURS } from '@poi/shared/limits';
import type { CreateApiKeyInput } from '@poi/shared/schemas/api-keys';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import { createTtlCache } from '../../lib/ttl-cache';
import type { CurrentUser } from '../../plugins/auth';
import type { PricingService } from '../pricing/pricing.service';
import type { UserRow } from '../users/users.repository';
import * as repo from './api-keys.repository';
import { displayPrefixOf, generateApiKey, hashApiKey } from './key-format';
import { statusOf } from './key-status';

/** How long a resolved key (and its owner) is trusted before it is read again. */
const KEY_CACHE_MS = 10_000;
const KEY_CACHE_MAX = 50_000;

export const apiKeyMessages = {
  notFound: 'APIキーが見つかりません',
  limitReached: (max: number) => `APIキーは最大${max}個まで作成できます。不要なキーを無効化してから作成してください`,
  alreadyRevoked: 'このAPIキーは既に無効化されています',
  notRotatable: '有効なAPIキーのみローテーションできます',
  expiryInPast: '有効期限には今日以降の日付を指定してください',
  created: 'APIキーを作成しました',
  revoked: 'APIキーを無効化しました',
  rotated: 'APIキーをローテーションしました。古いキーは24時間後に無効になります',
} as const;

/** 'YYYY-MM-DD' means "through that day, Japan time"; an ISO instant is taken as it is. */
export function parseExpiry(value: string): Date {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? endOfDay(value) : new Date(value);
}

export interface ResolvedKey {
  key: repo.ApiKeyRow;
  user: UserRow;
  /** The status of the corporate account the user belongs to (null: none). */
  corporateStatus: 'pending' | 'active' | 'suspended' | 'rejected' | null;
}

export interface ApiKeysService {
  list(user: CurrentUser): Promise<{ keys: repo.ApiKeyRow[]; activeCount: number; maxKeys: number }>;
  create(user: CurrentUser, body: CreateApiKeyInput): Promise<{ key: repo.ApiKeyRow; secret: string }>;
  revoke(user: CurrentUser, id: string): Promise<repo.ApiKeyRow>;
  rotate(user: CurrentUser, id: string): Promise<{ key: repo.ApiKeyRow; secret: string }>;
  /** The key with this hash and its owner, from a short-lived cache; undefined when unknown. */
  resolve(keyHash: string): Promise<ResolvedKey | undefined>;
  /** Records that keys were used (called by the usage flush). */
  touch(ids: string[], at: Date): Promise<void>;
}

export function createApiKeysService(deps: { db: Db; pricing: PricingService; changes: ChangeFeed }): ApiKeysService {
  const { db, pricing, changes } = deps;
  const cache = createTtlCache<string, ResolvedKey | undefined>(KEY_CACHE_MS, KEY_CACHE_MAX);
  const forget = (match: (entry: ResolvedKey) => boolean) => cache.forget((entry) => !entry || match(entry));
  changes.on('apiKey', (id) => forget((e) => !id || e.key.id === id));
  changes.on('user', (id) => forget((e) => !id || e.user.id === id));

  /** The user's key, locked for the change that follows. */
  async function requireOwnKey(tx: Executor, user: CurrentUser, id: string) {
    const key = await repo.findApiKey(tx, id, { forUpdate: true });
    if (!key || key.userId !== user.id) throw new AppError('NOT_FOUND', apiKeyMessages.notFound);
    return key;
  }

  async function issue(ex: Executor, userId: string, body: { name: string; allowedIps: string[]; allowedReferrers: string[]; expiresAt: Date | null }) {
    const secret = generateApiKey();
    const key = await repo.insertApiKey(ex, {
      userId,
      name: body.name,
      keyHash: hashApiKey(secret),
      prefix: displayPrefixOf(secret),
      allowedIps: body.allowedIps,
      allowedReferrers: body.allowedReferrers,
      expiresAt: body.expiresAt,
    });
    return { key, secret };
  }

  return {
    async list(user) {
      const [keys, version] = await Promise.all([repo.listApiKeys(db, user.id), pricing.versionAt(user.accountType, new Date())]);
      const now = new Date();
      return { keys, activeCount: keys.filter((k) => statusOf(k, now) === 'active').length, maxKeys: version.maxApiKeys };
    },

    async create(user, body) {
      const expiresAt = body.expires_at ? parseExpiry(body.expires_at) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw new AppError('VALIDATION_ERROR', apiKeyMessages.expiryInPast, { errors: [{ field: 'expires_at', message: apiKeyMessages.expiryInPast }] });
      const version = await pricing.versionAt(user.accountType, new Date());
      return inTransaction(db, async (tx) => {
        // Serialises concurrent creations of one user so that the maximum holds.
        await repo.lockUserApiKeys(tx, user.id);
        if ((await repo.countLiveApiKeys(tx, user.id)) >= version.maxApiKeys) throw new AppError('CONFLICT', apiKeyMessages.limitReached(version.maxApiKeys));
        return issue(tx, user.id, { name: body.name, allowedIps: body.allowed_ips, allowedReferrers: body.allowed_referrers, expiresAt });
      });
    },

    async revoke(user, id) {
      const key = await inTransaction(db, async (tx) => {
        const current = await requireOwnKey(tx, user, id);
        if (current.revokedAt) throw new AppError('CONFLICT', apiKeyMessages.alreadyRevoked);
        return (await repo.revokeApiKey(tx, id))!;
      });
      changes.changed('apiKey', id);
      return key;
    },

    async rotate(user, id) {
      const result = await inTransaction(db, async (tx) => {
        const old = await requireOwnKey(tx, user, id);
        if (statusOf(old) !== 'active') throw new AppError('CONFLICT', apiKeyMessages.notRotatable);
        const issued = await issue(tx, user.id, {
          name: old.name,
          allowedIps: old.allowedIps,
          allowedReferrers: old.allowedReferrers,
          expiresAt: old.expiresAt,
        });
        await repo.markRotated(tx, old.id, issued.key.id, new Date(Date.now() + API_KEY_ROTATION_OVERLAP_HOURS * 3_600_000));
        return issued;
      });
      changes.changed('apiKey', id);
      return result;
    },

    resolve: (keyHash) => cache.get(keyHash, () => repo.findApiKeyByHash(db, keyHash)),

    touch: (ids, at) => repo.touchApiKeys(db, ids, at),
  };
}
