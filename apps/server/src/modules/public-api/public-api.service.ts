import { randomUUID } from 'node:crypto';
import { BlockList, isIPv4 } from 'node:net';
import { dayOf, yearMonthOf } from '@poi/shared/billing-time';
import { formatYen } from '@poi/shared/format';
import { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import { suggestPriceSen, toSen } from '@poi/shared/money';
import { referrerMatches } from '@poi/shared/network';
import type { Db } from '../../db/client';
import { PLATFORM_RECIPIENT } from '../../db/schema/usage';
import type { ChangeFeed } from '../../lib/change-feed';
import type { ErrorCode } from '@poi/shared/schemas/common';
import { bearerOf } from '../../plugins/auth';
import { AppError } from '../../lib/errors';
import { createTtlCache } from '../../lib/ttl-cache';
import type { ApiKeysService, ResolvedKey } from '../api-keys/api-keys.service';
import { statusOf } from '../api-keys/key-status';
import { hashApiKey, isWellFormedApiKey } from '../api-keys/key-format';
import { findDataset } from '../datasets/datasets.repository';
import type { PricingService } from '../pricing/pricing.service';
import type { PricingVersionRow } from '../pricing/pricing.repository';
import { BudgetExceededError, type BudgetGuard, type BudgetReservation } from '../budgets/budget-guard';
import type { UsageMeter } from '../usage/usage-meter';
import { freeSearchesUsed, type UsageEvent } from '../usage/usage.repository';
import { createFreeQuota } from './free-quota';
import type { RateLimiter, RateLimitResult } from './rate-limiter';

export const publicApiMessages = {
  keyMissing: 'APIキーが必要です。Authorization: Bearer <APIキー> または X-API-Key ヘッダーで指定してください',
  keyMalformed: 'APIキーの形式が正しくありません。コピーしたキーを確認してください',
  keyInvalid: 'APIキーが無効です',
  keyRevoked: 'このAPIキーは無効化されています',
  keyExpired: 'このAPIキーは有効期限が切れています',
  ipNotAllowed: 'このIPアドレスからはこのAPIキーを使用できません',
  referrerNotAllowed: 'このリファラーからはこのAPIキーを使用できません',
  trialPaidDataset: 'トライアルアカウントでは有料データセットを検索できません。/upgrade からプランをアップグレードしてください',
  trialQuotaExceeded: (limit: number) =>
    `今月の無料検索回数(${limit.toLocaleString('ja-JP')}回)の上限に達しました。/upgrade からプランをアップグレードしてください`,
  budgetExceeded: (limitYen: number) =>
    `今月の予算上限(${formatYen(limitYen, 0)})に達したため、検索を停止しています。/billing で予算を変更してください`,
  meterBusy: '現在検索を受け付けられません。しばらくしてから再度お試しください',
  methodNotAllowed: 'このURLは GET メソッドで呼び出してください',
} as const;

/** A search's price as it is (a suggest's is suggestPriceSen). */
const fullPrice = (sen: number) => sen;

/** How long a dataset's price and recipient are reused before being read again. */
const DATASET_CACHE_MS = 5_000;

export interface Caller {
  resolved: ResolvedKey;
  version: PricingVersionRow;
  rate: RateLimitResult;
}

/** A search that may run: what it will cost if it succeeds. Settled exactly once. */
export interface SearchPlan {
  requestId: string;
  occurredAt: Date;
  yearMonth: string;
  caller: Caller;
  datasetIds: string[];
  /** What is metered: a search, or a type-ahead request at a fifth of the prices (suggestPriceSen). */
  kind: SearchKind;
  pricesSen: number[];
  /** The base fee of this request unless it is one of the month's free ones. */
  baseFeeSen: number;
  sharesBp: number[];
  recipientIds: string[];
  /** The price held against the caller's budget under a hard stop. */
  budget?: BudgetReservation;
  settled: boolean;
}

export type SearchKind = 'search' | 'suggest';

interface DatasetPrice {
  priceSen: number;
  recipientId: string;
}

export interface PublicApiService {
  /** The caller of a request from its key (header values), with the rate limit counted. */
  authenticate(input: { authorization?: string; apiKey?: string; ip: string; referer?: string; origin?: string }): Promise<Caller>;
  /**
   * Checks the datasets and the caller's quota and reserves the search; throws 404/402/503. A
   * suggest is planned the same way (same refusals, free quota and budget), at a fifth of the prices.
   */
  plan(caller: Caller, datasetIds: string[], kind?: SearchKind): Promise<SearchPlan>;
  /** Ends a planned search: a success is metered, a failure only releases its reservation. */
  settle(plan: SearchPlan, succeeded: boolean): void;
}

/** A refusal of the public API with the rate-limit state to report in its headers. */
export class PublicApiError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly rate: RateLimitResult,
  ) {
    super(code, message, code === 'RATE_LIMITED' ? { retryAfterSeconds: rate.resetSeconds } : {});
  }
}

/** The key of a request: `Authorization: Bearer …` or `X-API-Key`. */
export function apiKeyOf(authorization: string | undefined, apiKeyHeader: string | undefined): string | undefined {
  return apiKeyHeader?.trim() || bearerOf(authorization);
}

function ipAllowList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of cidrs) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

const allowLists = new WeakMap<readonly string[], BlockList>();

export function ipAllowed(ip: string, cidrs: readonly string[]): boolean {
  if (!cidrs.length) return true;
  let list = allowLists.get(cidrs);
  if (!list) {
    list = ipAllowList(cidrs);
    allowLists.set(cidrs, list);
  }
  const plain = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  return list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
}

export function createPublicApiService(deps: {
  db: Db;
  apiKeys: ApiKeysService;
  pricing: PricingService;
  meter: UsageMeter;
  limiter: RateLimiter;
  changes: ChangeFeed;
  /** Budgets' hard stops and the cost so far they watch (absent: no budgets). */
  budgets?: BudgetGuard;
}): PublicApiService {
  const { db, apiKeys, pricing, meter, limiter, changes, budgets } = deps;
  const quota = createFreeQuota((userId, yearMonth) => freeSearchesUsed(db, userId, yearMonth));
  const datasetCache = createTtlCache<string, DatasetPrice | undefined>(DATASET_CACHE_MS);
  changes.on('dataset', (id) => (id ? datasetCache.delete(id) : datasetCache.forget()));

  async function datasetPrice(id: string): Promise<DatasetPrice> {
    const entry = await datasetCache.get(id, async () => {
      const row = await findDataset(db, id);
      return (
        row && {
          priceSen: toSen(row.pricePerSearch),
          recipientId: row.isPlatformDataset || !row.providerUserId ? PLATFORM_RECIPIENT : row.providerUserId,
        }
      );
    });
    if (!entry) throw new AppError('NOT_FOUND', messages.datasetNotFound);
    return entry;
  }

  const limitAnonymous = async (ip: string) => {
    const rate = await limiter.hit(`ip:${ip}`, UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE);
    if (!rate.allowed) throw new PublicApiError('RATE_LIMITED', messages.tooManyRequests, rate);
    return rate;
  };

  // Until a live key of an active account is known, requests count against the IP's limit. (Made
  // once, not per request: a closure per call cost 1 % of a search under the bench's tsx.)
  const reject = async (ip: string, code: ErrorCode, message: string): Promise<never> => {
    const rate = await limitAnonymous(ip);
    throw new PublicApiError(code, message, rate);
  };

  return {
    async authenticate(input) {
      const key = apiKeyOf(input.authorization, input.apiKey);
      if (!key) return reject(input.ip, 'UNAUTHORIZED', publicApiMessages.keyMissing);
      // A typo fails its checksum here, without a database lookup.
      if (!isWellFormedApiKey(key)) return reject(input.ip, 'UNAUTHORIZED', publicApiMessages.keyMalformed);
      const resolved = await apiKeys.resolve(hashApiKey(key));
      if (!resolved) return reject(input.ip, 'UNAUTHORIZED', publicApiMessages.keyInvalid);
      const status = statusOf(resolved.key);
      if (status === 'revoked') return reject(input.ip, 'UNAUTHORIZED', publicApiMessages.keyRevoked);
      if (status === 'expired') return reject(input.ip, 'UNAUTHORIZED', publicApiMessages.keyExpired);
      if (resolved.user.status !== 'active') return reject(input.ip, 'ACCOUNT_SUSPENDED', messages.accountSuspended);
      if (resolved.corporateStatus === 'suspended') return reject(input.ip, 'ACCOUNT_SUSPENDED', messages.corporateSuspended);

      const version = await pricing.versionAt(resolved.user.accountType, new Date());
      const rate = await limiter.hit(`user:${resolved.user.id}`, version.rateLimitPerMinute);
      if (!rate.allowed) throw new PublicApiError('RATE_LIMITED', messages.tooManyRequests, rate);
      if (!ipAllowed(input.ip, resolved.key.allowedIps)) throw new PublicApiError('FORBIDDEN', publicApiMessages.ipNotAllowed, rate);
      const referrers = resolved.key.allowedReferrers;
      // Pages with Referrer-Policy: no-referrer (the console's own) send only Origin.
      const from = input.referer || input.origin;
      if (referrers.length && !(from && referrers.some((p) => referrerMatches(from, p)))) {
        throw new PublicApiError('FORBIDDEN', publicApiMessages.referrerNotAllowed, rate);
      }
      return { resolved, version, rate };
    },

    async plan(caller, ids, kind = 'search') {
      const datasetIds = [...new Set(ids)];
      const prices = await Promise.all(datasetIds.map(datasetPrice));
      const { user } = caller.resolved;
      const trial = user.accountType === 'trial';
      if (trial && prices.some((p) => p.priceSen > 0)) throw new AppError('PAYMENT_REQUIRED', publicApiMessages.trialPaidDataset);
      if (!meter.accepting()) throw new AppError('SERVICE_UNAVAILABLE', publicApiMessages.meterBusy, { retryAfterSeconds: 5 });

      const occurredAt = new Date();
      const yearMonth = yearMonthOf(occurredAt);
      const limit = caller.version.freeSearchesPerMonth;
      if (!(await quota.reserve(user.id, yearMonth, trial ? limit : undefined))) {
        throw new AppError('PAYMENT_REQUIRED', publicApiMessages.trialQuotaExceeded(limit));
      }
      const priceOf = kind === 'suggest' ? suggestPriceSen : fullPrice;
      const pricesSen = prices.map((p) => priceOf(p.priceSen));
      const baseFeeSen = priceOf(toSen(caller.version.baseFee));
      let budget: BudgetReservation | undefined;
      try {
        // Synchronous (an in-memory view, no query): concurrent searches cannot both take the last yen.
        budget = budgets?.reserve(user.id, yearMonth, datasetIds, pricesSen, baseFeeSen);
      } catch (err) {
        quota.settle(user.id, yearMonth, false, limit);
        if (err instanceof BudgetExceededError) throw new AppError('BUDGET_EXCEEDED', publicApiMessages.budgetExceeded(err.limitYen));
        throw err;
      }
      const shareBp = caller.version.providerShareBp;
      return {
        requestId: randomUUID(),
        occurredAt,
        yearMonth,
        caller,
        datasetIds,
        kind,
        pricesSen,
        baseFeeSen,
        sharesBp: prices.map((p) => (p.recipientId === PLATFORM_RECIPIENT ? 10_000 : shareBp)),
        recipientIds: prices.map((p) => p.recipientId),
        budget,
        settled: false,
      };
    },

    settle(plan, succeeded) {
      if (plan.settled) return;
      plan.settled = true;
      const { user, key } = plan.caller.resolved;
      const version = plan.caller.version;
      const free = quota.settle(user.id, plan.yearMonth, succeeded, version.freeSearchesPerMonth);
      if (plan.budget) budgets?.release(plan.budget);
      if (!succeeded) return;
      const baseFeeSen = plan.baseFeeSen;
      const datasetsSen = plan.pricesSen.reduce((sum, p) => sum + p, 0);
      const event: UsageEvent = {
        requestId: plan.requestId,
        occurredAt: plan.occurredAt,
        day: dayOf(plan.occurredAt),
        userId: user.id,
        apiKeyId: key.id,
        accountType: user.accountType,
        pricingVersionId: version.id,
        datasetIds: plan.datasetIds,
        datasetPricesSen: plan.pricesSen,
        datasetSharesBp: plan.sharesBp,
        datasetRecipientIds: plan.recipientIds,
        baseFeeSen,
        amountSen: datasetsSen + (free ? 0 : baseFeeSen),
        free,
      };
      meter.record(event);
      budgets?.recorded(event);
    },
  };
}
