import type { FastifyBaseLogger } from 'fastify';
import { yearMonthOf } from '@poi/shared/billing-time';
import { lineAmountYen, totalsOfSubtotal, type ChargeLine } from '@poi/shared/invoice-math';
import { BUDGET_ALERT_THRESHOLDS } from '@poi/shared/schemas/budgets';
import type { Db } from '../../db/client';
import type { Mailer } from '../../plugins/mail';
import type { UsageEvent } from '../usage/usage.repository';
import { buildBudgetAlertMail } from './budget-mail';
import * as repo from './budgets.repository';

/*
 * The budget check of the public API, without a database query on the hot path.
 *
 * Each instance keeps, per budgeted billing account, the month's invoice lines so far as
 * quantities per (dataset, unit price) and base-fee unit price, in three parts:
 *   stored     what the database holds (loaded, then advanced as this instance's meter writes),
 *   unflushed  searches this instance metered that its meter has not written yet,
 *   reserved   searches admitted under a hard stop and still running,
 * and their sum with its subtotal kept incrementally (each line rounded as the invoice rounds it),
 * so a check is a Map lookup and a few additions.
 *
 * Loads and refreshes run inside the meter's flush run (`afterFlush`), never while a batch is being
 * written: a snapshot then holds exactly the written events, and every event not in it is in
 * `unflushed` (or arrives later through `written`). Every REFRESH_MS the instance compares the
 * month's stored search counts of its budgeted users (the daily rollup: one cheap query) with its
 * own and reloads the lines of accounts that other instances served meanwhile; budgets and
 * memberships changed elsewhere are picked up by the same refresh.
 *
 * Exactness: on one instance the hard stop is exact under concurrency — the check and the
 * reservation of the search's price happen synchronously, before anything is awaited, so two
 * concurrent searches can never both pass on the last yen. The reservation prices the base fee
 * even when the search may turn out to be one of the month's free ones (decided only when it
 * succeeds): near the limit the check errs on the side of stopping. Across several instances
 * each one sees the others' usage as of its last refresh, so together they can overshoot the
 * limit by at most what the other instances serve in one refresh interval plus one flush
 * interval (REFRESH_MS + USAGE_FLUSH_INTERVAL_MS, about 6 s of the account's traffic on them).
 *
 * Alerts are checked after each flush against the stored part (what an invoice would bill);
 * budget_alerts' primary key makes each threshold's mail go out once per month whatever the
 * number of instances (insert … on conflict do nothing; mail only when inserted). Thresholds
 * passed together get one mail, of the highest.
 */

/** How often stored usage is compared with the database (other instances' searches, budget changes). */
export const BUDGET_REFRESH_MS = 5_000;

class LineSet {
  readonly lines = new Map<string, ChargeLine>();
  subtotalYen = 0;

  add(key: string, unitPriceSen: number, delta: number): void {
    const line = this.lines.get(key);
    const before = line?.quantity ?? 0;
    const after = before + delta;
    this.subtotalYen += lineAmountYen(after, unitPriceSen) - lineAmountYen(before, unitPriceSen);
    if (after === 0) this.lines.delete(key);
    else if (line) line.quantity = after;
    else this.lines.set(key, { quantity: after, unitPriceSen });
  }

  /** The subtotal if one more of each key were added. */
  subtotalWith(keys: readonly BudgetLineKey[]): number {
    let subtotal = this.subtotalYen;
    for (const k of keys) {
      const q = this.lines.get(k.key)?.quantity ?? 0;
      subtotal += lineAmountYen(q + 1, k.unitPriceSen) - lineAmountYen(q, k.unitPriceSen);
    }
    return subtotal;
  }

  addAll(other: LineSet, sign: 1 | -1 = 1): void {
    for (const [key, line] of other.lines) this.add(key, line.unitPriceSen, sign * line.quantity);
  }

  clear(): void {
    this.lines.clear();
    this.subtotalYen = 0;
  }
}

interface BudgetLineKey {
  key: string;
  unitPriceSen: number;
}

interface AccountBudget {
  id: string;
  limitYen: number;
  hardStop: boolean;
  emails: string[];
  userIds: string[];
  yearMonth: string;
  stored: LineSet;
  /** Every event (free ones too) in `stored`, to compare with the database's count. */
  storedSearches: number;
  unflushed: LineSet;
  reserved: LineSet;
  all: LineSet;
  alertsSent: Set<number>;
}

/** A search admitted under a hard stop: released when it ends, whatever its outcome. */
export interface BudgetReservation {
  account: AccountBudget;
  yearMonth: string;
  keys: BudgetLineKey[];
  released: boolean;
}

export class BudgetExceededError extends Error {
  constructor(readonly limitYen: number) {
    super(`budget of ${limitYen} yen reached`);
  }
}

const datasetKey = (datasetId: string, unitPriceSen: number): string => `d:${datasetId}:${unitPriceSen}`;
const baseFeeKey = (unitPriceSen: number): string => `b:${unitPriceSen}`;

function eventKeys(e: UsageEvent): BudgetLineKey[] {
  const keys: BudgetLineKey[] = [];
  for (let i = 0; i < e.datasetIds.length; i++) {
    const p = e.datasetPricesSen[i]!;
    if (p > 0) keys.push({ key: datasetKey(e.datasetIds[i]!, p), unitPriceSen: p });
  }
  if (!e.free && e.baseFeeSen > 0) keys.push({ key: baseFeeKey(e.baseFeeSen), unitPriceSen: e.baseFeeSen });
  return keys;
}

/** A month's stored quantities (rows of several users) as invoice lines: per dataset and unit price, base fee per unit price. */
export function chargeLinesOf(rows: readonly repo.UsageQuantityRow[]): Map<string, ChargeLine> {
  const lines = new Map<string, ChargeLine>();
  for (const r of rows) {
    const unitPriceSen = Number(r.unitPriceSen);
    const key = r.datasetId ? datasetKey(r.datasetId, unitPriceSen) : baseFeeKey(unitPriceSen);
    const line = lines.get(key);
    if (line) line.quantity += Number(r.quantity);
    else lines.set(key, { quantity: Number(r.quantity), unitPriceSen });
  }
  return lines;
}

export interface BudgetGuard {
  /**
   * Admits a search of this user (its datasets' prices and the base fee) or throws
   * BudgetExceededError when a hard stop forbids it. Synchronous: no database, no await.
   */
  reserve(userId: string, yearMonth: string, datasetIds: readonly string[], pricesSen: readonly number[], baseFeeSen: number): BudgetReservation | undefined;
  release(reservation: BudgetReservation): void;
  /** A search this instance metered (meter.record). */
  recorded(event: UsageEvent): void;
  /** Events the meter has just written to the database. */
  written(events: readonly UsageEvent[]): void;
  /** Run by the meter at the end of each flush run: loads, refreshes and alerts. Never throws. */
  afterFlush(): Promise<void>;
  /** Loads every budget (at start). */
  start(): Promise<void>;
  /** Reloads one account's budget at the next flush run and waits for it (after a change on this instance). */
  reloadAccount(billingAccountId: string): Promise<void>;
}

export function createBudgetGuard(deps: {
  db: Db;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  /** The usage meter's flush: loads run inside its run. */
  flush: () => Promise<unknown>;
  /** Called each time a hard stop refuses a search (/metrics counts them). */
  onStop?: () => void;
  refreshMs?: number;
  now?: () => Date;
}): BudgetGuard {
  const { db, log } = deps;
  const refreshMs = deps.refreshMs ?? BUDGET_REFRESH_MS;
  const now = deps.now ?? (() => new Date());
  const accounts = new Map<string, AccountBudget>();
  const byUser = new Map<string, AccountBudget>();
  /** Events counted in `unflushed` (the meter hands the same objects to `written`). */
  const tracked = new WeakSet<UsageEvent>();
  const dirty = new Set<string>();
  let fullRefreshDue = true;
  let lastRefresh = 0;

  function startMonth(acc: AccountBudget, yearMonth: string): void {
    acc.yearMonth = yearMonth;
    acc.stored.clear();
    acc.storedSearches = 0;
    acc.unflushed.clear();
    acc.reserved.clear();
    acc.all.clear();
    acc.alertsSent.clear();
    // Other instances' searches of the new month arrive with the next refresh.
    fullRefreshDue = true;
  }

  /** The account of an event's user when the event is of its current month (a newer month starts one). */
  function accountFor(userId: string, yearMonth: string): AccountBudget | undefined {
    const acc = byUser.get(userId);
    if (!acc) return undefined;
    if (yearMonth > acc.yearMonth) startMonth(acc, yearMonth);
    return yearMonth === acc.yearMonth ? acc : undefined;
  }

  const addKeys = (set: LineSet, keys: readonly BudgetLineKey[], sign: 1 | -1) => {
    for (const k of keys) set.add(k.key, k.unitPriceSen, sign);
  };

  function setMembers(acc: AccountBudget, userIds: string[]): void {
    for (const u of acc.userIds) if (byUser.get(u) === acc) byUser.delete(u);
    acc.userIds = userIds;
    for (const u of userIds) byUser.set(u, acc);
  }

  function dropAccount(acc: AccountBudget): void {
    setMembers(acc, []);
    accounts.delete(acc.id);
  }

  /** Applies budget rows (one or every account's) and answers the accounts whose lines need loading. */
  function applyBudgets(rows: repo.BudgetedMemberRow[], scope: string | undefined, yearMonth: string): AccountBudget[] {
    const grouped = new Map<string, repo.BudgetedMemberRow[]>();
    for (const r of rows) grouped.set(r.billingAccountId, [...(grouped.get(r.billingAccountId) ?? []), r]);
    for (const acc of [...accounts.values()]) {
      if ((scope === undefined || acc.id === scope) && !grouped.has(acc.id)) dropAccount(acc);
    }
    const fresh: AccountBudget[] = [];
    for (const [id, members] of grouped) {
      const first = members[0]!;
      const userIds = members.flatMap((m) => (m.userId ? [m.userId] : [])).sort();
      let acc = accounts.get(id);
      if (!acc) {
        acc = {
          id,
          limitYen: 0,
          hardStop: false,
          emails: [],
          userIds: [],
          yearMonth,
          stored: new LineSet(),
          storedSearches: 0,
          unflushed: new LineSet(),
          reserved: new LineSet(),
          all: new LineSet(),
          alertsSent: new Set(),
        };
        accounts.set(id, acc);
        fresh.push(acc);
      } else if (acc.userIds.join() !== userIds.join()) {
        fresh.push(acc);
      }
      acc.limitYen = Number(first.monthlyLimitYen);
      acc.hardStop = first.hardStop;
      acc.emails = first.billingEmails ?? [];
      setMembers(acc, userIds);
      if (acc.yearMonth !== yearMonth) startMonth(acc, yearMonth);
    }
    return fresh;
  }

  /** Replaces the stored part of these accounts with the database's. */
  async function loadLines(list: AccountBudget[], yearMonth: string): Promise<void> {
    const users = list.flatMap((a) => a.userIds);
    const [quantities, counts] = await Promise.all([repo.monthUsageQuantities(db, users, yearMonth), repo.monthSearchCounts(db, users, yearMonth)]);
    const rowsByUser = new Map<string, repo.UsageQuantityRow[]>();
    for (const r of quantities) rowsByUser.set(r.userId, [...(rowsByUser.get(r.userId) ?? []), r]);
    for (const acc of list) {
      if (acc.yearMonth !== yearMonth) continue;
      acc.stored.clear();
      for (const [key, line] of chargeLinesOf(acc.userIds.flatMap((u) => rowsByUser.get(u) ?? []))) acc.stored.add(key, line.unitPriceSen, line.quantity);
      acc.storedSearches = acc.userIds.reduce((n, u) => n + (counts.get(u) ?? 0), 0);
      acc.all.clear();
      acc.all.addAll(acc.stored);
      acc.all.addAll(acc.unflushed);
      acc.all.addAll(acc.reserved);
    }
  }

  async function loadAlerts(list: AccountBudget[], yearMonth: string): Promise<void> {
    const sent = await repo.listAlertsSent(db, list.map((a) => a.id), yearMonth);
    for (const acc of list) if (acc.yearMonth === yearMonth) acc.alertsSent.clear();
    for (const s of sent) {
      const acc = accounts.get(s.billingAccountId);
      if (acc?.yearMonth === yearMonth) acc.alertsSent.add(s.thresholdPct);
    }
  }

  async function refreshAll(): Promise<void> {
    const yearMonth = yearMonthOf(now());
    const fresh = applyBudgets(await repo.listBudgetedMembers(db), undefined, yearMonth);
    const list = [...accounts.values()];
    const counts = await repo.monthSearchCounts(db, list.flatMap((a) => a.userIds), yearMonth);
    const changed = list.filter((a) => fresh.includes(a) || a.storedSearches !== a.userIds.reduce((n, u) => n + (counts.get(u) ?? 0), 0));
    if (changed.length) await loadLines(changed, yearMonth);
    await loadAlerts(list, yearMonth);
  }

  async function refreshOne(id: string): Promise<void> {
    const yearMonth = yearMonthOf(now());
    applyBudgets(await repo.listBudgetedMembers(db, id), id, yearMonth);
    const acc = accounts.get(id);
    if (!acc) return;
    await loadLines([acc], yearMonth);
    await loadAlerts([acc], yearMonth);
  }

  async function sendAlerts(): Promise<void> {
    for (const acc of accounts.values()) {
      const spentYen = totalsOfSubtotal(acc.stored.subtotalYen).totalYen;
      const crossed = BUDGET_ALERT_THRESHOLDS.filter((pct) => !acc.alertsSent.has(pct) && spentYen * 100 >= acc.limitYen * pct);
      if (!crossed.length) continue;
      const { id, yearMonth, limitYen, hardStop } = acc;
      const inserted: number[] = [];
      for (const pct of crossed) {
        acc.alertsSent.add(pct);
        if (await repo.insertAlert(db, id, yearMonth, pct)) inserted.push(pct);
      }
      // Several thresholds passed at once (a budget set below the cost so far, a burst between
      // flushes): one mail, of the highest; the lower ones count as sent.
      const pct = inserted.at(-1);
      if (pct === undefined || !acc.emails.length) continue;
      try {
        await deps.mailer.send(buildBudgetAlertMail({ to: acc.emails, thresholdPct: pct, limitYen, spentYen, hardStop, yearMonth, billingUrl: `${deps.publicUrl}/billing` }));
        log.info({ billingAccountId: id, thresholdPct: pct, spentYen, limitYen }, 'budget alert sent');
      } catch (err) {
        // Not sent: the rows go, so a later flush tries again.
        log.warn({ err, billingAccountId: id, thresholdPct: pct }, 'budget alert mail failed; will retry');
        await repo.deleteAlerts(db, id, yearMonth, inserted);
        for (const p of inserted) acc.alertsSent.delete(p);
      }
    }
  }

  return {
    reserve(userId, yearMonth, datasetIds, pricesSen, baseFeeSen) {
      const acc = accountFor(userId, yearMonth);
      if (!acc?.hardStop) return undefined;
      const keys: BudgetLineKey[] = [];
      for (let i = 0; i < datasetIds.length; i++) {
        const p = pricesSen[i]!;
        if (p > 0) keys.push({ key: datasetKey(datasetIds[i]!, p), unitPriceSen: p });
      }
      if (baseFeeSen > 0) keys.push({ key: baseFeeKey(baseFeeSen), unitPriceSen: baseFeeSen });
      const spent = totalsOfSubtotal(acc.all.subtotalYen).totalYen;
      if (spent >= acc.limitYen || totalsOfSubtotal(acc.all.subtotalWith(keys)).totalYen > acc.limitYen) {
        deps.onStop?.();
        throw new BudgetExceededError(acc.limitYen);
      }
      addKeys(acc.reserved, keys, 1);
      addKeys(acc.all, keys, 1);
      return { account: acc, yearMonth, keys, released: false };
    },

    release(r) {
      if (r.released) return;
      r.released = true;
      if (r.account.yearMonth !== r.yearMonth || accounts.get(r.account.id) !== r.account) return;
      addKeys(r.account.reserved, r.keys, -1);
      addKeys(r.account.all, r.keys, -1);
    },

    recorded(e) {
      const acc = accountFor(e.userId, e.day.slice(0, 7));
      if (!acc) return;
      const keys = eventKeys(e);
      addKeys(acc.unflushed, keys, 1);
      addKeys(acc.all, keys, 1);
      tracked.add(e);
    },

    written(events) {
      for (const e of events) {
        const acc = accountFor(e.userId, e.day.slice(0, 7));
        if (!acc) continue;
        const keys = eventKeys(e);
        // An event recorded before its account was loaded is in neither the snapshot nor `unflushed`.
        if (tracked.has(e)) addKeys(acc.unflushed, keys, -1);
        else addKeys(acc.all, keys, 1);
        tracked.delete(e);
        addKeys(acc.stored, keys, 1);
        acc.storedSearches += 1;
      }
    },

    async afterFlush() {
      try {
        if (fullRefreshDue || now().getTime() - lastRefresh >= refreshMs) {
          fullRefreshDue = false;
          lastRefresh = now().getTime();
          dirty.clear();
          await refreshAll();
        }
        for (const id of [...dirty]) {
          dirty.delete(id);
          await refreshOne(id);
        }
        await sendAlerts();
      } catch (err) {
        fullRefreshDue = true;
        log.warn({ err }, 'budget refresh failed; retrying at the next flush');
      }
    },

    async start() {
      fullRefreshDue = true;
      await deps.flush();
    },

    async reloadAccount(id) {
      dirty.add(id);
      await deps.flush();
      // The run joined may have passed its reload step already: the next one takes it.
      if (dirty.has(id)) await deps.flush();
    },
  };
}
