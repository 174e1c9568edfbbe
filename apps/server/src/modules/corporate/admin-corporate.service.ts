import type { CorporateDetail, CorporateListFilter, CorporateSummary, CreateCorporateBody, UpdateCorporateBody } from '@poi/shared/schemas/corporate';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { csvDocument } from '@poi/shared/csv';
import { AppError } from '../../lib/errors';
import { toAuditEntry, writeAudit, type AuditActor } from '../audit/audit';
import { activateCorporateAccount, type CorporateAccountRow } from './corporate-activation';
import { corporateMessages, normalizePostal, pendingCorporateValues, toCorporateApplication } from './corporate.service';
import {
  corporateAuditOf,
  corporateMembersOf,
  countCorporateAccounts,
  findCorporateWithBilling,
  insertCorporateAccount,
  listCorporateAccounts,
  lockCorporateAccount,
  lockCorporateMembers,
  lockUser,
  recentInvoicesOf,
  rejectCorporateAccount,
  setUserMembership,
  suspendCorporateAccount,
  syncCorporateBillingAccount,
  updateCorporateAccount,
  type CorporateAccountValues,
  type CorporateListRow,
} from './corporate.repository';

export const adminCorporateMessages = {
  notActive: 'この法人アカウントは有効ではないため停止できません',
  notPending: '審査中のお申し込みのみ却下できます',
  ownerNotFound: 'オーナーに指定したユーザーが見つかりません',
  userNotFound: 'ユーザーが見つかりません',
  inOtherCorporate: 'このユーザーはすでに別の法人アカウントに所属しています',
  alreadyMember: 'このユーザーはすでにこの法人アカウントのメンバーです',
  notMember: 'このユーザーはこの法人アカウントのメンバーではありません',
  lastOwner: 'オーナーが1人だけのため、このメンバーは外せません。先に別のオーナーを追加してください',
  notProvider: 'データ提供者・管理用アカウントは法人アカウントのメンバーにできません',
  closed: '却下済みの法人アカウントは変更できません',
};

/**
 * The admin side of corporate accounts (docs/billing.md "Administration"): list, detail,
 * create, company and billing data (future invoices only: issued invoices keep their snapshot),
 * suspend (members' API access stops), reject an application, members. Each change and its one
 * audit row commit together; the members' caches are told (their keys follow the account).
 */
export function createAdminCorporateService(deps: { db: Db; changes?: ChangeFeed }) {
  const { db, changes } = deps;

  async function lockAccount(tx: Executor, id: string): Promise<CorporateAccountRow> {
    const corp = await lockCorporateAccount(tx, id);
    if (!corp) throw new AppError('NOT_FOUND', corporateMessages.notFound);
    return corp;
  }
  const membersOf = corporateMembersOf;
  const tellMembers = async (id: string, extra: string[] = []) => {
    const members = await membersOf(db, id);
    for (const m of [...members.map((x) => x.id), ...extra]) changes?.changed('user', m);
  };

  const toSummary = (r: CorporateListRow): CorporateSummary => ({
    id: r.corp.id,
    status: r.corp.status,
    company_name: r.corp.companyName,
    company_name_kana: r.corp.companyNameKana,
    payment_method: r.corp.paymentMethod,
    customer_number: r.customerNumber,
    credit_limit: r.corp.creditLimitYen,
    payment_terms: r.corp.paymentTerms,
    member_count: Number(r.members),
    status_reason: r.corp.statusReason,
    created_at: r.corp.createdAt.toISOString(),
  });

  async function detail(id: string): Promise<CorporateDetail> {
    const row = await findCorporateWithBilling(db, id);
    if (!row) throw new AppError('NOT_FOUND', corporateMessages.notFound);
    const [members, invoiceRows, audit] = await Promise.all([
      membersOf(db, id),
      row.billingId ? recentInvoicesOf(db, row.billingId, 24) : Promise.resolve([]),
      corporateAuditOf(db, id, 50),
    ]);
    const c = row.corp;
    return {
      account: {
        ...toCorporateApplication(c),
        credit_limit: c.creditLimitYen,
        payment_terms: c.paymentTerms,
        customer_number: row.customerNumber,
        applied_by: c.appliedBy,
        decided_at: c.decidedAt?.toISOString() ?? null,
      },
      members: members.map((m) => ({ id: m.id, email: m.email, display_name: m.displayName, corporate_role: m.corporateRole ?? 'member', status: m.status })),
      invoices: invoiceRows.map((i) => ({ id: i.id, number: i.number, year_month: i.yearMonth, status: i.status, total: i.totalYen, paid: i.paidYen, credited: i.creditedYen, due_date: i.dueDate })),
      audit: audit.map(toAuditEntry),
    };
  }

  const snapshot = (c: CorporateAccountRow) => ({
    status: c.status,
    company_name: c.companyName,
    company_name_kana: c.companyNameKana,
    department: c.department,
    postal_code: c.postalCode,
    address: c.address,
    phone: c.phone,
    billing_contact_name: c.billingContactName,
    billing_emails: c.billingEmails,
    corporate_number: c.corporateNumber,
    registration_number: c.registrationNumber,
    payment_method: c.paymentMethod,
    credit_limit: c.creditLimitYen,
    payment_terms: c.paymentTerms,
  });

  return {
    async list(f: CorporateListFilter) {
      const [rows, total] = await Promise.all([listCorporateAccounts(db, f, { limit: f.limit, offset: f.offset }), countCorporateAccounts(db, f)]);
      return { accounts: rows.map(toSummary), total };
    },

    detail,

    /** Every account matching the list's filters, as CSV (companies, their terms and limits). */
    async csv(f: Pick<CorporateListFilter, 'status' | 'q'>): Promise<string> {
      const rows = await listCorporateAccounts(db, f);
      return csvDocument(
        ['法人アカウントID', '状態', '会社名', '会社名(カナ)', 'お客様番号', '支払方法', '与信限度額(円)', '支払条件', 'メンバー数', '請求書送付先', '申込日時'],
        rows.map(({ corp: c, customerNumber, members }) => [
          c.id,
          c.status,
          c.companyName,
          c.companyNameKana,
          customerNumber,
          c.paymentMethod,
          c.creditLimitYen,
          c.paymentTerms,
          Number(members),
          c.billingEmails.join(' '),
          c.createdAt.toISOString(),
        ]),
      );
    },

    async create(actor: AuditActor, body: CreateCorporateBody) {
      const out = await inTransaction(db, async (tx) => {
        const owner = await lockUser(tx, body.owner_user_id);
        if (!owner) throw new AppError('NOT_FOUND', adminCorporateMessages.ownerNotFound);
        if (owner.corporateAccountId) throw new AppError('CONFLICT', adminCorporateMessages.inOtherCorporate);
        if (owner.accountType === 'data_provider' || owner.accountType === 'platform_admin') throw new AppError('CONFLICT', adminCorporateMessages.notProvider);
        const pending = await insertCorporateAccount(tx, pendingCorporateValues(body, owner.id));
        // The same activation as an approved application: the owner joins, the billing account opens.
        return activateCorporateAccount(tx, actor, pending, {
          via: 'admin',
          ...(body.credit_limit !== undefined ? { creditLimitYen: body.credit_limit } : {}),
          ...(body.payment_terms ? { paymentTerms: body.payment_terms } : {}),
          reason: body.reason,
          auditAction: 'corporate_account.created',
        });
      });
      for (const id of out.affectedUserIds) changes?.changed('user', id);
      return detail(out.corporate.id);
    },

    async update(actor: AuditActor, id: string, body: UpdateCorporateBody) {
      await inTransaction(db, async (tx) => {
        const before = await lockAccount(tx, id);
        if (before.status === 'rejected') throw new AppError('CONFLICT', adminCorporateMessages.closed);
        const set: CorporateAccountValues = {
          ...(body.company_name !== undefined ? { companyName: body.company_name } : {}),
          ...(body.company_name_kana !== undefined ? { companyNameKana: body.company_name_kana } : {}),
          ...(body.department !== undefined ? { department: body.department || null } : {}),
          ...(body.postal_code !== undefined ? { postalCode: normalizePostal(body.postal_code) } : {}),
          ...(body.address !== undefined ? { address: body.address } : {}),
          ...(body.phone !== undefined ? { phone: body.phone } : {}),
          ...(body.billing_contact_name !== undefined ? { billingContactName: body.billing_contact_name } : {}),
          ...(body.billing_emails !== undefined ? { billingEmails: [...new Set(body.billing_emails.map((e) => e.toLowerCase()))] } : {}),
          ...(body.corporate_number !== undefined ? { corporateNumber: body.corporate_number || null } : {}),
          ...(body.registration_number !== undefined ? { registrationNumber: body.registration_number || null } : {}),
          ...(body.payment_method !== undefined ? { paymentMethod: body.payment_method } : {}),
          ...(body.credit_limit !== undefined ? { creditLimitYen: body.credit_limit } : {}),
          ...(body.payment_terms !== undefined ? { paymentTerms: body.payment_terms } : {}),
        };
        const after = await updateCorporateAccount(tx, id, set);
        // Future invoices are addressed from the billing account; issued ones keep their snapshot.
        await syncCorporateBillingAccount(tx, after);
        const b = snapshot(before);
        const a = snapshot(after);
        const changedKeys = (Object.keys(a) as Array<keyof typeof a>).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
        await writeAudit(tx, actor, {
          action: 'corporate_account.updated',
          targetType: 'corporate_account',
          targetId: id,
          before: Object.fromEntries(changedKeys.map((k) => [k, b[k]])),
          after: { ...Object.fromEntries(changedKeys.map((k) => [k, a[k]])), reason: body.reason },
        });
      });
      return detail(id);
    },

    async suspend(actor: AuditActor, id: string, reason: string) {
      await inTransaction(db, async (tx) => {
        const before = await lockAccount(tx, id);
        if (before.status !== 'active') throw new AppError('CONFLICT', adminCorporateMessages.notActive);
        await suspendCorporateAccount(tx, id, reason);
        await writeAudit(tx, actor, { action: 'corporate_account.suspended', targetType: 'corporate_account', targetId: id, before: { status: before.status }, after: { status: 'suspended', reason } });
      });
      await tellMembers(id);
      return detail(id);
    },

    async reject(actor: AuditActor, id: string, reason: string) {
      await inTransaction(db, async (tx) => {
        const before = await lockAccount(tx, id);
        if (before.status !== 'pending') throw new AppError('CONFLICT', adminCorporateMessages.notPending);
        await rejectCorporateAccount(tx, id, actor.id, reason);
        await writeAudit(tx, actor, { action: 'corporate_account.rejected', targetType: 'corporate_account', targetId: id, before: { status: 'pending' }, after: { status: 'rejected', reason } });
      });
      return detail(id);
    },

    async addMember(actor: AuditActor, id: string, body: { user_id: string; role: 'owner' | 'billing' | 'member'; reason: string }) {
      await inTransaction(db, async (tx) => {
        const corp = await lockAccount(tx, id);
        if (corp.status === 'rejected' || corp.status === 'pending') throw new AppError('CONFLICT', adminCorporateMessages.closed);
        const user = await lockUser(tx, body.user_id);
        if (!user) throw new AppError('NOT_FOUND', adminCorporateMessages.userNotFound);
        if (user.corporateAccountId === id) throw new AppError('CONFLICT', adminCorporateMessages.alreadyMember);
        if (user.corporateAccountId) throw new AppError('CONFLICT', adminCorporateMessages.inOtherCorporate);
        if (user.accountType === 'data_provider' || user.accountType === 'platform_admin') throw new AppError('CONFLICT', adminCorporateMessages.notProvider);
        await setUserMembership(tx, user.id, { corporateAccountId: id, corporateRole: body.role, accountType: 'corporate' });
        await writeAudit(tx, actor, {
          action: 'corporate_account.member_added',
          targetType: 'corporate_account',
          targetId: id,
          before: { user_id: user.id, account_type: user.accountType },
          after: { user_id: user.id, role: body.role, account_type: 'corporate', reason: body.reason },
        });
      });
      changes?.changed('user', body.user_id);
      return detail(id);
    },

    async removeMember(actor: AuditActor, id: string, userId: string, reason: string) {
      await inTransaction(db, async (tx) => {
        await lockAccount(tx, id);
        const members = await lockCorporateMembers(tx, id);
        const member = members.find((m) => m.id === userId);
        if (!member) throw new AppError('NOT_FOUND', adminCorporateMessages.notMember);
        if (member.corporateRole === 'owner' && members.filter((m) => m.corporateRole === 'owner').length === 1) throw new AppError('CONFLICT', adminCorporateMessages.lastOwner);
        // A member who leaves starts again as a trial user (they may upgrade on their own).
        await setUserMembership(tx, userId, { corporateAccountId: null, corporateRole: null, accountType: 'trial' });
        await writeAudit(tx, actor, {
          action: 'corporate_account.member_removed',
          targetType: 'corporate_account',
          targetId: id,
          before: { user_id: userId, role: member.corporateRole, account_type: member.accountType },
          after: { user_id: userId, account_type: 'trial', reason },
        });
      });
      changes?.changed('user', userId);
      return detail(id);
    },
  };
}
export type AdminCorporateService = ReturnType<typeof createAdminCorporateService>;
