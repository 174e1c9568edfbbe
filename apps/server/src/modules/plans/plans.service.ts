import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import type { AdminCancellationRequest, CorporateCancellationBody, PlanState } from '@poi/shared/schemas/plans';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { SYSTEM_ACTOR, writeAudit, type AuditActor } from '../audit/audit';
import * as repo from './plans.repository';

export const planMessages = {
  trial: 'トライアルのアカウントには解約できるプランがありません',
  corporateMember: '法人アカウントの解約は、所有者が「解約を申請する」から申請してください',
  notIndividual: 'このアカウントの種類では解約を予約できません',
  alreadyScheduled: 'すでに月末での解約を予約しています',
  nothingToUndo: '取り消せる解約の予約はありません',
  alreadyEffective: '解約はすでに有効になっているため取り消せません',
  notOwner: '解約の申請は法人アカウントの所有者のみ行えます',
  corporateNotActive: '有効な法人アカウントではないため解約を申請できません',
  alreadyRequested: 'この法人アカウントはすでに解約を申請済みです',
};

/** How often the plan-changes job looks for changes that are due (app.ts). */
export const PLAN_CHANGES_JOB_INTERVAL_MS = 60_000;
const APPLY_BATCH = 100;

/** 00:00 Japan time on the 1st of the month after `at`: when a cancellation scheduled at `at` takes effect. */
export const cancellationEffectiveAt = (at: Date): Date => monthRange(yearMonthOf(at)).end;

export interface PlansService {
  state(user: CurrentUser): Promise<PlanState>;
  cancel(user: CurrentUser, actor: AuditActor): Promise<PlanState>;
  undoCancel(user: CurrentUser, actor: AuditActor): Promise<PlanState>;
  requestCorporateCancellation(user: CurrentUser, body: CorporateCancellationBody, actor: AuditActor): Promise<PlanState>;
  /** Applies every scheduled change whose instant is at or before `at` (the job); answers how many changed a type. */
  applyDue(at?: Date): Promise<number>;
  listCancellationRequests(): Promise<AdminCancellationRequest[]>;
}

/**
 * Leaving a plan (docs/billing.md "Cancel and downgrade"). An individual schedules the return to
 * trial for the start of the next Japan-time month and may withdraw it until then; the
 * plan-changes job applies it. A corporate owner files a request an administrator processes.
 */
export function createPlansService(deps: { db: Db; changes?: ChangeFeed; now?: () => Date }): PlansService {
  const { db, changes } = deps;
  const now = deps.now ?? (() => new Date());

  async function state(user: CurrentUser): Promise<PlanState> {
    const [fresh, scheduled, request] = await Promise.all([
      repo.findPlanUser(db, user.id),
      repo.findScheduledChange(db, user.id),
      user.corporateAccountId ? repo.findCancellationRequest(db, user.corporateAccountId) : Promise.resolve(undefined),
    ]);
    const u = fresh ?? user;
    return {
      account_type: u.accountType,
      can_cancel: u.accountType === 'individual' && !u.corporateAccountId && !scheduled,
      scheduled_change: scheduled
        ? { to_type: 'trial', effective_at: scheduled.effectiveAt.toISOString(), scheduled_at: scheduled.createdAt.toISOString() }
        : null,
      corporate: u.corporateAccountId
        ? {
            is_owner: u.corporateRole === 'owner',
            cancellation_request: request ? { requested_at: request.createdAt.toISOString(), reason: request.reason } : null,
          }
        : null,
    };
  }

  return {
    state,

    async cancel(user, actor) {
      await inTransaction(db, async (tx) => {
        const u = (await repo.lockPlanUser(tx, user.id)) ?? user;
        if (u.corporateAccountId) throw new AppError('CONFLICT', planMessages.corporateMember);
        if (u.accountType === 'trial') throw new AppError('CONFLICT', planMessages.trial);
        if (u.accountType !== 'individual') throw new AppError('CONFLICT', planMessages.notIndividual);
        if (await repo.findScheduledChange(tx, u.id)) throw new AppError('CONFLICT', planMessages.alreadyScheduled);
        const at = now();
        const change = await repo.insertPlanChange(tx, { userId: u.id, fromType: 'individual', toType: 'trial', effectiveAt: cancellationEffectiveAt(at), createdAt: at });
        await writeAudit(tx, actor, {
          action: 'plan.cancel_scheduled',
          targetType: 'user',
          targetId: u.id,
          before: { account_type: 'individual' },
          after: { plan_change_id: change.id, to_type: 'trial', effective_at: change.effectiveAt.toISOString() },
        });
      });
      return state(user);
    },

    async undoCancel(user, actor) {
      await inTransaction(db, async (tx) => {
        await repo.lockPlanUser(tx, user.id);
        const change = await repo.findScheduledChange(tx, user.id);
        if (!change) throw new AppError('CONFLICT', planMessages.nothingToUndo);
        const at = now();
        if (change.effectiveAt <= at) throw new AppError('CONFLICT', planMessages.alreadyEffective);
        await repo.decidePlanChange(tx, change.id, 'withdrawn', at);
        await writeAudit(tx, actor, {
          action: 'plan.cancel_withdrawn',
          targetType: 'user',
          targetId: user.id,
          before: { plan_change_id: change.id, status: 'scheduled', effective_at: change.effectiveAt.toISOString() },
          after: { plan_change_id: change.id, status: 'withdrawn' },
        });
      });
      return state(user);
    },

    async requestCorporateCancellation(user, body, actor) {
      await inTransaction(db, async (tx) => {
        const u = (await repo.lockPlanUser(tx, user.id)) ?? user;
        if (!u.corporateAccountId || u.corporateRole !== 'owner') throw new AppError('FORBIDDEN', planMessages.notOwner);
        const status = await repo.findCorporateStatus(tx, u.corporateAccountId);
        if (status !== 'active') throw new AppError('CONFLICT', planMessages.corporateNotActive);
        const reason = body.reason?.trim() || null;
        const request = await repo.insertCancellationRequest(tx, { corporateAccountId: u.corporateAccountId, requestedBy: u.id, reason, createdAt: now() });
        if (!request) throw new AppError('CONFLICT', planMessages.alreadyRequested);
        await writeAudit(tx, actor, {
          action: 'corporate.cancellation_requested',
          targetType: 'corporate_account',
          targetId: u.corporateAccountId,
          after: { request_id: request.id, requested_by: u.id, reason },
        });
      });
      return state(user);
    },

    async applyDue(at = now()) {
      let changed = 0;
      for (;;) {
        const due = await repo.listDueChanges(db, at, APPLY_BATCH);
        for (const change of due) {
          const applied = await inTransaction(db, async (tx) => {
            const user = await repo.lockPlanUser(tx, change.userId);
            const locked = await repo.lockScheduledChange(tx, change.id);
            if (!locked) return false;
            // Only the type it was scheduled from is changed: an account that became corporate
            // (or was changed by an administrator) meanwhile keeps its type.
            if (!user || user.accountType !== locked.fromType || user.corporateAccountId) {
              await repo.decidePlanChange(tx, locked.id, 'obsolete', at);
              await writeAudit(tx, SYSTEM_ACTOR, {
                action: 'plan.change_obsolete',
                targetType: 'user',
                targetId: locked.userId,
                before: { plan_change_id: locked.id, from_type: locked.fromType },
                after: { account_type: user?.accountType ?? null },
              });
              return false;
            }
            await repo.setAccountType(tx, user.id, locked.toType as repo.UserRow['accountType']);
            await repo.decidePlanChange(tx, locked.id, 'applied', at);
            await writeAudit(tx, SYSTEM_ACTOR, {
              action: 'user.account_type_changed',
              targetType: 'user',
              targetId: user.id,
              before: { account_type: locked.fromType },
              after: { account_type: locked.toType, via: 'plan_cancel', plan_change_id: locked.id, effective_at: locked.effectiveAt.toISOString() },
            });
            return true;
          });
          if (applied) {
            changed++;
            changes?.changed('user', change.userId);
          }
        }
        if (due.length < APPLY_BATCH) return changed;
      }
    },

    async listCancellationRequests() {
      const rows = await repo.listOpenCancellationRequests(db);
      return rows.map((r) => ({
        id: r.id,
        corporate_account_id: r.corporateAccountId,
        company_name: r.companyName,
        account_status: r.accountStatus,
        requested_by_email: r.requestedByEmail,
        reason: r.reason,
        requested_at: r.createdAt.toISOString(),
      }));
    },
  };
}
