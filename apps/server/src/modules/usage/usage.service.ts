import { daysOfMonth } from '@poi/shared/billing-time';
import { messages } from '@poi/shared/messages';
import { senToYen, toSen } from '@poi/shared/money';
import { hasRevenueAccess, isAdmin, isDataProvider } from '@poi/shared/roles';
import type { DatasetRevenue, RevenueReport, UsageSummary } from '@poi/shared/schemas/usage';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { countLiveApiKeys } from '../api-keys/api-keys.repository';
import { findDataset } from '../datasets/datasets.repository';
import type { PricingService } from '../pricing/pricing.service';
import type { UsageMeter } from './usage-meter';
import * as repo from './usage.repository';

export const DELETED_DATASET_NAME = '削除されたデータセット';
export const DELETED_KEY_NAME = '削除されたキー';

/** Revenue units (yen × 1,000,000) to yen, rounded down to the sen: a provider is never paid a fraction. */
export const revenueYen = (units: number): number => senToYen(Math.floor(units / 10_000));

export interface UsageService {
  summary(user: CurrentUser, yearMonth: string): Promise<UsageSummary>;
  revenueReport(user: CurrentUser, yearMonth: string): Promise<RevenueReport>;
  datasetRevenue(user: CurrentUser, datasetId: string, yearMonth: string): Promise<DatasetRevenue>;
}

function subjectOf(user: CurrentUser) {
  return { role: user.role, account_type: user.accountType };
}

/** Whose revenue the user sees: their own (a provider), everyone's (platform admins, admins). */
function revenueScope(user: CurrentUser): string | undefined {
  const subject = subjectOf(user);
  if (!hasRevenueAccess(subject) && !isAdmin(subject)) throw new AppError('FORBIDDEN', messages.forbidden);
  return isDataProvider(subject) && !isAdmin(subject) ? user.id : undefined;
}

export function createUsageService(deps: { db: Db; pricing: PricingService; meter: UsageMeter }): UsageService {
  const { db, pricing } = deps;

  return {
    async summary(user, yearMonth) {
      // Searches answered a moment ago are written first, so the figures include them.
      await deps.meter.flush().catch(() => undefined);
      const asOf = new Date();
      const [days, byKey, byDataset, activeKeys, version] = await Promise.all([
        repo.dailyUsage(db, user.id, yearMonth),
        repo.usageByKey(db, user.id, yearMonth),
        repo.usageByDataset(db, user.id, yearMonth),
        countLiveApiKeys(db, user.id),
        pricing.versionAt(user.accountType, asOf),
      ]);
      const byDay = new Map(days.map((d) => [d.day, d]));
      const searches = days.reduce((n, d) => n + d.searches, 0);
      const used = days.reduce((n, d) => n + d.freeSearches, 0);
      const limit = version.freeSearchesPerMonth;
      return {
        year_month: yearMonth,
        searches,
        amount: senToYen(days.reduce((n, d) => n + d.amountSen, 0)),
        free_searches: { limit, used, remaining: Math.max(0, limit - used) },
        base_fee: senToYen(toSen(version.baseFee)),
        active_keys: activeKeys,
        daily: daysOfMonth(yearMonth).map((date) => ({
          date,
          searches: byDay.get(date)?.searches ?? 0,
          amount: senToYen(byDay.get(date)?.amountSen ?? 0),
        })),
        by_key: byKey.map((k) => ({
          api_key_id: k.apiKeyId,
          name: k.name ?? DELETED_KEY_NAME,
          prefix: k.prefix ?? '',
          searches: k.searches,
          amount: senToYen(k.amountSen),
        })),
        by_dataset: byDataset.map((d) => ({
          dataset_id: d.datasetId,
          dataset_name: d.name ?? DELETED_DATASET_NAME,
          searches: d.searches,
          amount: senToYen(d.amountSen),
        })),
        as_of: asOf.toISOString(),
      };
    },

    async revenueReport(user, yearMonth) {
      const recipient = revenueScope(user);
      await deps.meter.flush().catch(() => undefined);
      const rows = await repo.revenueByDataset(db, yearMonth, recipient);
      const datasets = rows.map((r) => ({
        dataset_id: r.datasetId,
        dataset_name: r.name ?? DELETED_DATASET_NAME,
        searches: r.searches,
        revenue: revenueYen(r.revenueUnits),
      }));
      return {
        year_month: yearMonth,
        // The sum of the rows as shown, so the cards and the table always agree.
        total_revenue: senToYen(datasets.reduce((n, d) => n + toSen(d.revenue), 0)),
        total_searches: datasets.reduce((n, d) => n + d.searches, 0),
        dataset_count: datasets.length,
        datasets,
      };
    },

    async datasetRevenue(user, datasetId, yearMonth) {
      const recipient = revenueScope(user);
      await deps.meter.flush().catch(() => undefined);
      const [dataset, days] = await Promise.all([findDataset(db, datasetId), repo.dailyRevenue(db, datasetId, yearMonth, recipient)]);
      const mine = !recipient || dataset?.providerUserId === recipient;
      if (!days.length && (!dataset || !mine)) throw new AppError('NOT_FOUND', messages.datasetNotFound);
      const byDay = new Map(days.map((d) => [d.day, d]));
      const daily = daysOfMonth(yearMonth).map((date) => ({
        date,
        searches: byDay.get(date)?.searches ?? 0,
        revenue: revenueYen(byDay.get(date)?.revenueUnits ?? 0),
      }));
      const units = days.reduce((n, d) => n + d.revenueUnits, 0);
      return {
        year_month: yearMonth,
        dataset_id: datasetId,
        dataset_name: dataset?.name ?? DELETED_DATASET_NAME,
        searches: days.reduce((n, d) => n + d.searches, 0),
        revenue: revenueYen(units),
        daily,
      };
    },
  };
}
