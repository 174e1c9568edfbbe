import { yearMonthOf } from '@poi/shared/billing-time';
import { invoiceTotals } from '@poi/shared/invoice-math';
import type { Budget } from '@poi/shared/schemas/budgets';
import type { z } from 'zod';
import type { budgetBodySchema } from '@poi/shared/schemas/budgets';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { writeAudit, type AuditActor } from '../audit/audit';
import type { UsageMeter } from '../usage/usage-meter';
import { ensureBillingAccountForUser, findBillingAccountByUser } from '../billing-accounts/billing-accounts.repository';
import { chargeLinesOf, type BudgetGuard } from './budget-guard';
import * as repo from './budgets.repository';

export type BudgetBody = z.infer<typeof budgetBodySchema>;

export const budgetMessages = {
  corporateMemberForbidden: '法人アカウントの予算を変更できるのは、オーナーまたは請求担当のメンバーです',
} as const;

export interface BudgetsService {
  get(user: CurrentUser): Promise<Budget>;
  set(user: CurrentUser, body: BudgetBody, actor: AuditActor): Promise<Budget>;
}

/** This month's cost so far of these users, tax included, exactly as their invoice will compute it. */
async function spentThisMonth(ex: Executor, userIds: readonly string[], yearMonth: string): Promise<number> {
  return invoiceTotals(chargeLinesOf(await repo.monthUsageQuantities(ex, userIds, yearMonth)).values()).totalYen;
}

export function createBudgetsService(deps: { db: Db; meter: UsageMeter; guard: BudgetGuard }): BudgetsService {
  const { db, meter, guard } = deps;

  async function view(billingAccountId: string | undefined, userId: string): Promise<Budget> {
    const yearMonth = yearMonthOf();
    if (!billingAccountId) {
      return { monthly_limit: null, hard_stop: false, spent_this_month: await spentThisMonth(db, [userId], yearMonth), alerts_sent: [] };
    }
    const [budget, users, alerts] = await Promise.all([
      repo.findBudget(db, billingAccountId),
      repo.listBilledUsers(db, billingAccountId),
      repo.listAlertsSent(db, [billingAccountId], yearMonth),
    ]);
    return {
      monthly_limit: budget ? Number(budget.monthlyLimitYen) : null,
      hard_stop: budget?.hardStop ?? false,
      spent_this_month: await spentThisMonth(db, users, yearMonth),
      alerts_sent: budget ? alerts.map((a) => a.thresholdPct).sort((a, b) => a - b) : [],
    };
  }

  return {
    async get(user) {
      // Searches answered a moment ago are written first, so the figure includes them.
      await meter.flush().catch(() => undefined);
      const account = await findBillingAccountByUser(db, user.id);
      return view(account?.id, user.id);
    },

    async set(user, body, actor) {
      await meter.flush().catch(() => undefined);
      const account = await inTransaction(db, async (tx) => {
        const account = await ensureBillingAccountForUser(tx, user.id);
        if (account.kind === 'corporate' && user.corporateRole !== 'owner' && user.corporateRole !== 'billing') {
          throw new AppError('FORBIDDEN', budgetMessages.corporateMemberForbidden);
        }
        const row = await repo.findBudget(tx, account.id);
        const before = row ? { monthly_limit: Number(row.monthlyLimitYen), hard_stop: row.hardStop } : null;
        const after = body.monthly_limit === null ? null : { monthly_limit: body.monthly_limit, hard_stop: body.hard_stop };
        if (after) {
          // The month's alerts stay as sent: each threshold is mailed at most once a month whatever
          // the budget changes (raising it after the 100 % mail and crossing again sends nothing).
          await repo.saveBudget(tx, account.id, after.monthly_limit, after.hard_stop);
        } else {
          await repo.deleteBudget(tx, account.id);
        }
        if (JSON.stringify(before) !== JSON.stringify(after)) {
          await writeAudit(tx, actor, { action: after ? 'budget.set' : 'budget.remove', targetType: 'billing_account', targetId: account.id, before, after });
        }
        return account;
      });
      // This instance enforces the new budget from the next search on (others within their refresh).
      await guard.reloadAccount(account.id);
      return view(account.id, user.id);
    },
  };
}
