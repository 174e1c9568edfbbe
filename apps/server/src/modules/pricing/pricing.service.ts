import type { AccountType } from '@poi/shared/roles';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import * as repo from './pricing.repository';

/** The pricing table is tiny and read on every public search: it is cached, and re-read this often. */
const CACHE_MS = 30_000;

export interface PricingService {
  /** The version of an account type in force at an instant (the latest effective_from ≤ at). */
  versionAt(accountType: AccountType | string, at: Date): Promise<repo.PricingVersionRow>;
  /** Every version, oldest first per account type. */
  history(): Promise<repo.PricingVersionRow[]>;
  /** The versions in force now, one per account type. */
  current(): Promise<repo.PricingVersionRow[]>;
}

export function findVersionAt(versions: readonly repo.PricingVersionRow[], accountType: string, at: Date): repo.PricingVersionRow | undefined {
  let found: repo.PricingVersionRow | undefined;
  for (const v of versions) {
    if (v.accountType === accountType && v.effectiveFrom.getTime() <= at.getTime()) {
      if (!found || v.effectiveFrom > found.effectiveFrom) found = v;
    }
  }
  return found;
}

export function createPricingService(deps: { db: Db; changes?: ChangeFeed }): PricingService {
  let cache: { versions: repo.PricingVersionRow[]; loadedAt: number } | undefined;
  let loading: Promise<repo.PricingVersionRow[]> | undefined;

  async function versions(): Promise<repo.PricingVersionRow[]> {
    if (cache && Date.now() - cache.loadedAt < CACHE_MS) return cache.versions;
    loading ??= repo
      .listPricingVersions(deps.db)
      .then((rows) => {
        cache = { versions: rows, loadedAt: Date.now() };
        return rows;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  // A pricing change (the admin screen) is read at once on this instance.
  deps.changes?.on('pricing', () => {
    cache = undefined;
  });

  return {
    async versionAt(accountType, at) {
      const version = findVersionAt(await versions(), accountType, at);
      if (!version) throw new AppError('NOT_FOUND', 'その日時に有効な料金設定がありません');
      return version;
    },
    history: versions,
    async current() {
      const all = await versions();
      const now = new Date();
      const types = [...new Set(all.map((v) => v.accountType))];
      return types.map((t) => findVersionAt(all, t, now)).filter((v): v is repo.PricingVersionRow => !!v);
    },
  };
}
