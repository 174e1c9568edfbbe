import type { AdminUserDetail, AdminUserListFilter, AuditLogFilter } from '@poi/shared/schemas/users';
import type { AccountType, Role } from '@poi/shared/roles';
import { monthRange, yearMonthOf } from '@poi/shared/billing-time';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { csvDocument } from '@poi/shared/csv';
import { AppError } from '../../lib/errors';
import { toAuditEntry, writeAudit, type AuditActor } from '../audit/audit';
import * as repo from './users.repository';
import { toAdminUser } from './users.mapper';

export const LAST_ADMIN_MESSAGE = '有効な管理者が他にいないため、この操作はできません';
export const SELF_DEMOTE_MESSAGE = '自分自身の管理者権限は外せません';
export const ALREADY_STATUS = { active: 'このユーザーはすでに有効です', suspended: 'このユーザーはすでに停止されています' } as const;

/**
 * The admin side of users: list with filters, CSV, detail, type and role changes,
 * suspension. Every change and its audit row commit together; caches of this instance forget the
 * user at once, and other instances on PostgreSQL at once through the change feed's NOTIFY (at
 * worst, with the notification lost, within the 5 s session and 10 s API-key cache lifetimes).
 */
export function createAdminUsersService(deps: { db: Db; changes?: ChangeFeed; now?: () => Date }) {
  const { db, changes } = deps;
  const now = deps.now ?? (() => new Date());

  const mustFind = async (ex: Executor, id: string) => {
    const row = await repo.findAdminUser(ex, id);
    if (!row) throw new AppError('NOT_FOUND', 'ユーザーが見つかりません');
    return row;
  };

  /**
   * Locks the target and every administrator, always in id order, before reading the target: two
   * admins suspending or demoting each other at once are then serialised (never deadlocked), and
   * the second sees the first's change when it counts the admins left.
   */
  const lockAndFind = async (tx: Executor, id: string) => {
    await repo.lockAdminsAndUser(tx, id);
    return mustFind(tx, id);
  };

  /** An active admin losing admin rights (suspension or demotion) must leave another active admin. */
  async function assertNotLastAdmin(ex: Executor, row: repo.AdminUserRow) {
    if (row.role !== 'admin' || row.status !== 'active') return;
    if ((await repo.countOtherActiveAdmins(ex, row.id)) === 0) throw new AppError('CONFLICT', LAST_ADMIN_MESSAGE);
  }

  const snapshot = (u: repo.AdminUserRow | repo.UserRow) => ({ account_type: u.accountType, role: u.role, status: u.status, status_reason: u.statusReason });

  return {
    async list(filter: AdminUserListFilter) {
      const { rows, total } = await repo.listAdminUsers(db, filter);
      return { users: rows.map(toAdminUser), total };
    },

    async csv(filter: Omit<AdminUserListFilter, 'limit' | 'offset'>): Promise<string> {
      const { rows } = await repo.listAdminUsers(db, filter);
      return csvDocument(
        ['ユーザーID', 'メールアドレス', '表示名', '権限', 'アカウント種別', '状態', '状態の理由', '支払方法', '法人アカウントID', '登録日時', '最終ログイン'],
        rows.map((u) => [
          u.id,
          u.email,
          u.displayName,
          u.role,
          u.accountType,
          u.status,
          u.statusReason,
          u.paymentMethod,
          u.corporateAccountId,
          u.createdAt.toISOString(),
          u.lastLoginAt?.toISOString() ?? null,
        ]),
      );
    },

    async detail(id: string): Promise<AdminUserDetail> {
      const user = await mustFind(db, id);
      const yearMonth = yearMonthOf(now());
      const { start, end } = monthRange(yearMonth);
      const first = yearMonthOf(start) + '-01';
      const [usage, keys, invoiceRows, audit] = await Promise.all([
        repo.usageOfDays(db, id, first, yearMonthOf(end) + '-01'),
        repo.apiKeysOfUser(db, id),
        repo.invoicesOfUser(db, id, user.corporateAccountId, 24),
        repo.auditOfTarget(db, 'user', id, 50),
      ]);
      const u = usage[0]!;
      return {
        user: toAdminUser(user),
        usage_this_month: { year_month: yearMonth, searches: Number(u.searches), free_searches: Number(u.free), amount: Number(u.amountSen) / 100 },
        api_keys: keys.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          created_at: k.createdAt.toISOString(),
          last_used_at: k.lastUsedAt?.toISOString() ?? null,
          expires_at: k.expiresAt?.toISOString() ?? null,
          revoked_at: k.revokedAt?.toISOString() ?? null,
        })),
        invoices: invoiceRows.map((i) => ({ id: i.id, number: i.number, year_month: i.yearMonth, status: i.status, total: i.totalYen, credited: i.creditedYen, due_date: i.dueDate })),
        audit: audit.map(toAuditEntry),
      };
    },

    /**
     * Account type and, optionally, the admin role. Revenue already earned stays with its
     * recipient whatever the new type: usage rows carry the recipient of the time.
     */
    async changeType(actor: AuditActor, id: string, body: { account_type: AccountType; role?: Role; reason: string }) {
      const row = await inTransaction(db, async (tx) => {
        const before = await lockAndFind(tx, id);
        if (body.role === 'user' && before.role === 'admin') {
          if (actor.id === id) throw new AppError('BAD_REQUEST', SELF_DEMOTE_MESSAGE);
          await assertNotLastAdmin(tx, before);
        }
        const updated = await repo.updateTypeAndRole(tx, id, body.account_type, body.role ?? before.role);
        await writeAudit(tx, actor, {
          action: 'user.change_type',
          targetType: 'user',
          targetId: id,
          before: snapshot(before),
          after: { ...snapshot(updated!), reason: body.reason },
        });
        return updated!;
      });
      changes?.changed('user', id);
      return toAdminUser(await mustFind(db, row.id));
    },

    async suspend(actor: AuditActor, id: string, reason: string) {
      if (actor.id === id) throw new AppError('BAD_REQUEST', '自分自身のアカウントは停止できません');
      await inTransaction(db, async (tx) => {
        const before = await lockAndFind(tx, id);
        if (before.status === 'suspended') throw new AppError('CONFLICT', ALREADY_STATUS.suspended);
        await assertNotLastAdmin(tx, before);
        const updated = await repo.updateStatusWithReason(tx, id, 'suspended', reason);
        await repo.revokeUserSessions(tx, id);
        await writeAudit(tx, actor, { action: 'user.suspend', targetType: 'user', targetId: id, before: snapshot(before), after: { ...snapshot(updated!), reason } });
      });
      changes?.changed('user', id);
      return toAdminUser(await mustFind(db, id));
    },

    async activate(actor: AuditActor, id: string, reason: string) {
      await inTransaction(db, async (tx) => {
        const before = await lockAndFind(tx, id);
        if (before.status === 'active') throw new AppError('CONFLICT', ALREADY_STATUS.active);
        const updated = await repo.updateStatusWithReason(tx, id, 'active', reason);
        await writeAudit(tx, actor, { action: 'user.activate', targetType: 'user', targetId: id, before: snapshot(before), after: { ...snapshot(updated!), reason } });
      });
      changes?.changed('user', id);
      return toAdminUser(await mustFind(db, id));
    },

    async auditLogs(q: AuditLogFilter) {
      const [entries, total] = await Promise.all([repo.listAuditLogs(db, q), repo.countAuditLogs(db, q)]);
      return { entries: entries.map(toAuditEntry), total };
    },
  };
}
export type AdminUsersService = ReturnType<typeof createAdminUsersService>;
