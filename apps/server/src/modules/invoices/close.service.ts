import type { FastifyBaseLogger } from 'fastify';
import { daysOfMonth, dayOf, monthRange, yearMonthOf } from '@poi/shared/billing-time';
import { toSen } from '@poi/shared/money';
import type { Config } from '../../config';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { Mailer } from '../../plugins/mail';
import { SYSTEM_ACTOR, writeAudit, type AuditActor } from '../audit/audit';
import type { PricingService } from '../pricing/pricing.service';
import { ensureBillingAccountForUser, findBillingAccountById, type BillingAccountRow } from '../billing-accounts/billing-accounts.repository';
import { computeCharges, endOfNextMonth, issueDecision, nextYearMonth, type BaseFeeUsage, type Charges, type DatasetUsage } from './charges';
import * as repo from './close.repository';
import { bankSnapshot } from '../billing-accounts/bank-transfer';
import { buildInvoiceIssuedMail } from './invoice-mail';
import type { InvoiceRow } from './invoices.mapper';
import { nextInvoiceNumber } from './numbering.repository';

/** Called after an issuing transaction commits, with the invoices it issued (the card charge hooks in here). */
export type AfterIssue = (invoiceIds: string[]) => Promise<void>;

export interface CloseResult {
  year_month: string;
  issued: number;
  /** Accounts with usage or a carried amount not issued now: zero, already issued, or carried (card, under ¥50). */
  skipped: number;
  invoiceIds: string[];
  /** Accounts whose close failed (logged); the month is then not marked closed and is retried. */
  failed: number;
}

export interface CloseService {
  /** Closes a past 'YYYY-MM' month: one invoice per billing account, idempotent. */
  closeMonth(yearMonth: string, actor?: AuditActor): Promise<CloseResult>;
  /** Closes every past month not yet closed whose close time (00:05 JST on the next 1st) has come. */
  closeDueMonths(now?: Date): Promise<CloseResult[]>;
}

/** The close of a month runs at 00:05 JST on the 1st of the next month (searches of the last seconds are flushed by then). */
export const CLOSE_DELAY_MS = 5 * 60 * 1000;

/** When a month may be closed: 00:05 JST on the 1st of the month after it. */
export const closeTimeOf = (yearMonth: string): Date => new Date(monthRange(yearMonth).end.getTime() + CLOSE_DELAY_MS);

interface AccountGroup {
  /** Users whose usage is billed to this account. */
  userIds: string[];
  /** A user of the account, to find or create it. */
  anchorUserId?: string;
  /** Set when the account has carried (card, under ¥50) drafts of earlier months to take in. */
  billingAccountId?: string;
  corporate: boolean;
  /** The account type on the last search (individual accounts), for the monthly fee. */
  accountType: string;
}

/** Row positions of a month's usage per user, built once per MonthUsage (the close merges every account's from the same one). */
const rowsByUser = new WeakMap<repo.MonthUsage, { datasets: Map<string, number[]>; baseFees: Map<string, number[]> }>();

function positionsByUser(rows: readonly { userId: string }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const found = out.get(r.userId);
    if (found) found.push(i);
    else out.set(r.userId, [i]);
  });
  return out;
}

/** The positions of the given users' rows, in the rows' own order (so a merge sums in the same order as a scan of every row). */
function positionsOf(index: Map<string, number[]>, userIds: ReadonlySet<string>): number[] {
  const out: number[] = [];
  for (const id of userIds) out.push(...(index.get(id) ?? []));
  return userIds.size > 1 ? out.sort((a, b) => a - b) : out;
}

/**
 * Usage of several users (a corporate account's members) merged per (dataset, price) and per base
 * fee. Reads only those users' rows (an index by user, built once per MonthUsage): the close merges
 * every account of the month from the same MonthUsage, and a scan of every row per account grew with
 * accounts × rows.
 */
export function mergeUsage(usage: repo.MonthUsage, userIds: readonly string[]): { datasets: DatasetUsage[]; baseFees: BaseFeeUsage[] } {
  const who = new Set(userIds);
  let index = rowsByUser.get(usage);
  if (!index) rowsByUser.set(usage, (index = { datasets: positionsByUser(usage.datasets), baseFees: positionsByUser(usage.baseFees) }));
  const datasets = new Map<string, DatasetUsage>();
  for (const i of positionsOf(index.datasets, who)) {
    const d = usage.datasets[i]!;
    const key = `${d.datasetId}:${d.unitPriceSen}`;
    const found = datasets.get(key);
    if (found) found.searches += d.searches;
    else datasets.set(key, { datasetId: d.datasetId, name: d.name, unitPriceSen: d.unitPriceSen, searches: d.searches });
  }
  const baseFees = new Map<number, BaseFeeUsage>();
  for (const i of positionsOf(index.baseFees, who)) {
    const b = usage.baseFees[i]!;
    const found = baseFees.get(b.unitPriceSen);
    if (found) found.searches += b.searches;
    else baseFees.set(b.unitPriceSen, { unitPriceSen: b.unitPriceSen, searches: b.searches });
  }
  return { datasets: [...datasets.values()], baseFees: [...baseFees.values()] };
}

export function issuerSnapshot(issuer: Config['issuer'], bank: Config['bank']) {
  return {
    name: issuer.name ?? 'POI Cloud',
    representative: issuer.representative ?? null,
    address: issuer.address ?? null,
    phone: issuer.phone ?? null,
    phone_hours: issuer.phoneHours ?? null,
    email: issuer.email ?? null,
    registration_number: issuer.registrationNumber ?? null,
    bank: bankSnapshot(bank),
  };
}

export function recipientSnapshot(account: BillingAccountRow) {
  return {
    kind: account.kind,
    addressee: account.addressee,
    honorific: account.honorific,
    postal_code: account.postalCode,
    address: account.address,
    customer_number: account.customerNumber,
    billing_emails: account.billingEmails,
  };
}

/**
 * The monthly fee of an account type for a month: the version in force at the month's last
 * instant (a fee change during the month applies from the next one; versions are never retroactive).
 */
export async function monthlyFeeSenFor(pricing: PricingService, accountType: string, yearMonth: string): Promise<number> {
  const at = new Date(monthRange(yearMonth).end.getTime() - 1);
  try {
    return toSen((await pricing.versionAt(accountType, at)).monthlyFee);
  } catch {
    return 0;
  }
}

export function createCloseService(deps: {
  db: Db;
  config: Pick<Config, 'issuer' | 'bank' | 'publicUrl'>;
  pricing: PricingService;
  mailer: Mailer;
  log: FastifyBaseLogger;
  afterIssue?: AfterIssue;
  now?: () => Date;
  /** Accounts closed at once (1: one after the other; PGlite has one connection anyway). */
  concurrency?: number;
}): CloseService {
  const { db, log } = deps;
  const concurrency = deps.concurrency ?? 1;
  const now = deps.now ?? (() => new Date());
  const afterIssue: AfterIssue = deps.afterIssue ?? (async () => undefined);

  // A month's fee per account type is fixed (the version in force at its last instant): looked up once per close, not per account.
  const feeCache = new Map<string, Promise<number>>();
  const monthlyFeeSen = (accountType: string, yearMonth: string) => {
    const key = `${yearMonth}:${accountType}`;
    let fee = feeCache.get(key);
    if (!fee) feeCache.set(key, (fee = monthlyFeeSenFor(deps.pricing, accountType, yearMonth)));
    return fee;
  };

  async function groupsOf(yearMonth: string, usage: repo.MonthUsage): Promise<AccountGroup[]> {
    const targets = await repo.userTargets(db, [...usage.accountTypes.keys()]);
    const groups = new Map<string, AccountGroup>();
    for (const t of targets) {
      const key = t.corporateAccountId ? `corp:${t.corporateAccountId}` : `user:${t.userId}`;
      const group = groups.get(key);
      if (group) group.userIds.push(t.userId);
      else
        groups.set(key, {
          userIds: [t.userId],
          anchorUserId: t.userId,
          corporate: !!t.corporateAccountId,
          accountType: t.corporateAccountId ? 'corporate' : (usage.accountTypes.get(t.userId) ?? t.accountType),
        });
    }
    // Accounts with an amount carried from an earlier month are closed even without usage now.
    for (const a of await repo.accountsWithCarried(db, yearMonth)) {
      const key = a.kind === 'corporate' ? `corp:${a.corporateAccountId}` : `user:${a.userId}`;
      const group = groups.get(key);
      if (group) group.billingAccountId = a.id;
      else groups.set(key, { userIds: [], billingAccountId: a.id, corporate: a.kind === 'corporate', accountType: a.kind });
    }
    return [...groups.values()];
  }

  async function accountOf(tx: Executor, group: AccountGroup): Promise<BillingAccountRow> {
    if (group.anchorUserId) return ensureBillingAccountForUser(tx, group.anchorUserId);
    return (await findBillingAccountById(tx, group.billingAccountId!))!;
  }

  /** One account's invoice in its own transaction: 'issued' (with the row), 'carried', 'none' or 'exists'. */
  async function closeAccount(
    yearMonth: string,
    group: AccountGroup,
    usage: repo.MonthUsage,
    actor: AuditActor,
  ): Promise<{ outcome: 'issued' | 'carried' | 'none' | 'exists'; invoice?: InvoiceRow }> {
    const merged = mergeUsage(usage, group.userIds);
    const fee = group.userIds.length ? await monthlyFeeSen(group.accountType, yearMonth) : 0;
    const preview = computeCharges({ ...merged, monthlyFeeSen: fee });
    // Nothing to bill and nothing carried: no account is created for it.
    if (preview.totalYen === 0 && !group.billingAccountId) return { outcome: 'none' };
    const days = daysOfMonth(yearMonth);
    const today = dayOf(now());

    return inTransaction(db, async (tx) => {
      const account = await accountOf(tx, group);
      const claimed = await repo.claimMonthlyInvoice(tx, {
        billingAccountId: account.id,
        kind: 'monthly',
        yearMonth,
        status: 'draft',
        periodStart: days[0]!,
        periodEnd: days[days.length - 1]!,
        subtotalYen: 0,
        taxYen: 0,
        totalYen: 0,
        paymentMethod: account.paymentMethod,
        issuerSnapshot: issuerSnapshot(deps.config.issuer, deps.config.bank),
        recipientSnapshot: recipientSnapshot(account),
      });
      if (!claimed) return { outcome: 'exists' as const };
      // Carried drafts come only from earlier months' closes, never during this one (the close
      // lock): an account the close found without any has none to lock.
      const carried = group.billingAccountId ? await repo.lockCarried(tx, account.id, yearMonth) : [];
      const charges: Charges = computeCharges({ ...merged, monthlyFeeSen: fee, carried: carried.map((c) => ({ yearMonth: c.yearMonth, subtotalYen: c.subtotalYen })) });
      const decision = issueDecision(charges.totalYen, account.paymentMethod);
      if (decision === 'none') {
        // Only a carried amount could have made it non-zero; with none the claim is given back.
        await repo.deleteDraftInvoice(tx, claimed.id);
        return { outcome: 'none' as const };
      }
      await repo.insertLines(tx, claimed.id, charges.lines);
      const amounts = { subtotalYen: charges.subtotalYen, taxYen: charges.taxYen, totalYen: charges.totalYen };
      if (decision === 'carry') {
        const draft = await repo.updateDraftInvoice(tx, claimed.id, amounts);
        await repo.markCarried(tx, carried.map((c) => c.id), draft.id);
        await writeAudit(tx, actor, { action: 'invoice.carried_over', targetType: 'invoice', targetId: draft.id, after: { year_month: yearMonth, ...amounts } });
        return { outcome: 'carried' as const };
      }
      const number = await nextInvoiceNumber(tx, yearMonth);
      const credit = await repo.takeCredit(tx, account.id, charges.totalYen);
      const paid = credit >= charges.totalYen;
      const issuedAt = now();
      const invoice = await repo.updateDraftInvoice(tx, claimed.id, {
        ...amounts,
        number,
        status: paid ? 'paid' : 'issued',
        issueDate: today,
        dueDate: account.paymentMethod === 'card' ? today : endOfNextMonth(yearMonth),
        creditAppliedYen: credit,
        issuedAt,
        paidAt: paid ? issuedAt : null,
      });
      await repo.markCarried(tx, carried.map((c) => c.id), invoice.id);
      await writeAudit(tx, actor, {
        action: 'invoice.issued',
        targetType: 'invoice',
        targetId: invoice.id,
        after: { number, year_month: yearMonth, billing_account_id: account.id, ...amounts, credit_applied_yen: credit, status: invoice.status },
      });
      return { outcome: 'issued' as const, invoice };
    });
  }

  async function notify(invoice: InvoiceRow): Promise<void> {
    const emails = (invoice.recipientSnapshot as { billing_emails?: string[] }).billing_emails ?? [];
    for (const to of emails) {
      await deps.mailer.send(buildInvoiceIssuedMail(to, invoice, deps.config)).catch((err) => log.warn({ err, invoice: invoice.number }, 'invoice mail failed'));
    }
  }

  const service: CloseService = {
    async closeMonth(yearMonth, actor = SYSTEM_ACTOR) {
      feeCache.clear();
      const usage = await repo.monthUsage(db, yearMonth);
      const groups = await groupsOf(yearMonth, usage);
      const result: CloseResult = { year_month: yearMonth, issued: 0, skipped: 0, invoiceIds: [], failed: 0 };
      // Accounts are independent (each its own transaction, claimed under its unique key): a few
      // closed at once, so one account's round trips and commit wait overlap another's. Issued ones
      // still take their numbers one at a time (the month's counter row is locked until commit).
      let next = 0;
      const worker = async () => {
        while (next < groups.length) {
          const group = groups[next++]!;
          try {
            const { outcome, invoice } = await closeAccount(yearMonth, group, usage, actor);
            if (outcome !== 'issued' || !invoice) {
              result.skipped++;
              continue;
            }
            result.issued++;
            result.invoiceIds.push(invoice.id);
            await notify(invoice);
            await afterIssue([invoice.id]).catch((err) => log.error({ err, invoice: invoice.number }, 'after-issue step failed'));
          } catch (err) {
            result.failed++;
            log.error({ err, yearMonth, users: group.userIds }, 'monthly close of an account failed');
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, groups.length)) }, worker));
      if (!result.failed) {
        await writeAudit(db, actor, {
          action: repo.MONTH_CLOSED_ACTION,
          targetType: 'billing_month',
          targetId: yearMonth,
          after: { issued: result.issued, skipped: result.skipped },
        });
      }
      log.info({ yearMonth, issued: result.issued, skipped: result.skipped, failed: result.failed }, 'monthly close done');
      return result;
    },

    async closeDueMonths(at = now()) {
      const first = await repo.firstUsageMonth(db);
      if (!first) return [];
      const closed = await repo.closedMonths(db);
      const results: CloseResult[] = [];
      const current = yearMonthOf(at);
      for (let ym = first; ym < current && closeTimeOf(ym) <= at; ym = nextYearMonth(ym)) {
        if (!closed.has(ym)) results.push(await service.closeMonth(ym));
      }
      return results;
    },
  };
  return service;
}
