import type { FastifyBaseLogger } from 'fastify';
import { messages } from '@poi/shared/messages';
import { toSen, senToYen } from '@poi/shared/money';
import type { ActivateCorporateBody, CorporateApplication, CorporateApplicationBody, Plan, UpgradeView } from '@poi/shared/schemas/corporate';
import type { Db } from '../../db/client';
import type { corporateAccounts } from '../../db/schema/corporate';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import type { Mailer } from '../../plugins/mail';
import { writeAudit, type AuditActor } from '../audit/audit';
import type { PricingService } from '../pricing/pricing.service';
import { activateCorporateAccount, type CorporateAccountRow } from './corporate-activation';
import { hasPendingApplication, insertCorporateAccount, latestApplicationOf, lockCorporateAccount, lockUser, userStanding } from './corporate.repository';
import { buildCorporateActivatedMail } from './corporate-mail';

export const corporateMessages = {
  notEligible: '法人アカウントのお申し込みは、トライアルまたは個人アカウントからのみ行えます',
  alreadyPending: '審査中またはカード登録待ちのお申し込みがあります。現在のお申し込みの結果をお待ちください',
  notFound: '法人アカウントが見つかりません',
  alreadyActive: 'この法人アカウントはすでに有効です',
  rejected: 'この申し込みは却下済みのため有効化できません。新しいお申し込みが必要です',
  applicantElsewhere: '申込者はすでに別の法人アカウントに所属しているため、この申し込みを承認できません',
};

const PLAN_TYPES = ['trial', 'individual', 'corporate'] as const;

export interface CorporateService {
  upgradeView(user: CurrentUser, cardPaymentsAvailable: boolean): Promise<UpgradeView>;
  /** A card application is refused (503, nothing written) while card payments are off. */
  apply(user: CurrentUser, body: CorporateApplicationBody, actor: AuditActor, cardPaymentsAvailable: boolean): Promise<CorporateApplication>;
  activate(id: string, body: ActivateCorporateBody, actor: AuditActor): Promise<CorporateApplication>;
  /** Waits for mails started so far. */
  idle(): Promise<void>;
}

export function toCorporateApplication(row: CorporateAccountRow): CorporateApplication {
  return {
    id: row.id,
    status: row.status,
    waiting_for: row.status === 'pending' ? (row.paymentMethod === 'card' ? 'card' : 'approval') : null,
    status_reason: row.statusReason,
    created_at: row.createdAt.toISOString(),
    company_name: row.companyName,
    company_name_kana: row.companyNameKana,
    department: row.department,
    postal_code: row.postalCode,
    address: row.address,
    phone: row.phone,
    billing_contact_name: row.billingContactName,
    billing_emails: row.billingEmails,
    corporate_number: row.corporateNumber,
    registration_number: row.registrationNumber,
    payment_method: row.paymentMethod,
  };
}

export const normalizePostal = (p: string) => (/^\d{7}$/.test(p) ? `${p.slice(0, 3)}-${p.slice(3)}` : p);

/** A pending corporate account from an application (the user's, or one an admin creates for an owner). */
export function pendingCorporateValues(body: CorporateApplicationBody, appliedBy: string): typeof corporateAccounts.$inferInsert {
  return {
    status: 'pending',
    companyName: body.company_name,
    companyNameKana: body.company_name_kana,
    department: body.department || null,
    postalCode: normalizePostal(body.postal_code),
    address: body.address,
    phone: body.phone,
    billingContactName: body.billing_contact_name,
    billingEmails: [...new Set(body.billing_emails.map((e) => e.toLowerCase()))],
    corporateNumber: body.corporate_number || null,
    registrationNumber: body.registration_number || null,
    paymentMethod: body.payment_method,
    appliedBy,
  };
}

/**
 * Upgrade and corporate applications (docs/billing.md "Upgrades and corporate accounts"): the plans in force,
 * a trial or individual user's application, and an administrator's approval or reactivation —
 * which runs the same activation as a card application's saved card (corporate-activation.ts).
 */
export function createCorporateService(deps: { db: Db; pricing: PricingService; mailer: Mailer; log: FastifyBaseLogger; publicUrl: string; changes?: ChangeFeed }): CorporateService {
  const { db, mailer, log } = deps;
  const background = new Set<Promise<unknown>>();

  const latestApplication = (userId: string): Promise<CorporateAccountRow | undefined> => latestApplicationOf(db, userId);

  return {
    async upgradeView(user, cardPaymentsAvailable) {
      const current = await deps.pricing.current();
      const plans: Plan[] = PLAN_TYPES.flatMap((type) => {
        const v = current.find((p) => p.accountType === type);
        if (!v) return [];
        return [
          {
            account_type: type,
            base_fee: senToYen(toSen(v.baseFee)),
            free_searches_per_month: v.freeSearchesPerMonth,
            monthly_fee: Math.floor(toSen(v.monthlyFee) / 100),
            rate_limit_per_minute: v.rateLimitPerMinute,
            max_api_keys: v.maxApiKeys,
            effective_from: v.effectiveFrom.toISOString(),
          },
        ];
      });
      const application = await latestApplication(user.id);
      const row = await userStanding(db, user.id);
      return { account_type: row?.accountType ?? user.accountType, plans, application: application ? toCorporateApplication(application) : null, card_payments_available: cardPaymentsAvailable };
    },

    async apply(user, body, actor, cardPaymentsAvailable) {
      // Accepted, it would wait for a card that cannot be saved and block any other application.
      if (body.payment_method === 'card' && !cardPaymentsAvailable) throw new AppError('SERVICE_UNAVAILABLE', messages.cardUnavailable);
      const created = await inTransaction(db, async (tx) => {
        // The user's row is the lock: two applications at once cannot both pass the pending check.
        const me = await lockUser(tx, user.id);
        if (!me) throw new AppError('NOT_FOUND', corporateMessages.notFound);
        if (me.accountType !== 'trial' && me.accountType !== 'individual') throw new AppError('CONFLICT', corporateMessages.notEligible);
        if (me.corporateAccountId) throw new AppError('CONFLICT', corporateMessages.notEligible);
        if (await hasPendingApplication(tx, user.id)) throw new AppError('CONFLICT', corporateMessages.alreadyPending);
        const row = await insertCorporateAccount(tx, pendingCorporateValues(body, user.id));
        await writeAudit(tx, actor, {
          action: 'corporate_account.applied',
          targetType: 'corporate_account',
          targetId: row.id,
          before: null,
          after: { status: 'pending', company_name: row.companyName, payment_method: row.paymentMethod, applied_by: user.id },
        });
        return row;
      });
      return toCorporateApplication(created);
    },

    async activate(id, body, actor) {
      const out = await inTransaction(db, async (tx) => {
        const corp = await lockCorporateAccount(tx, id);
        if (!corp) throw new AppError('NOT_FOUND', corporateMessages.notFound);
        if (corp.status === 'active') throw new AppError('CONFLICT', corporateMessages.alreadyActive);
        if (corp.status === 'rejected') throw new AppError('CONFLICT', corporateMessages.rejected);
        if (corp.status === 'pending' && corp.appliedBy) {
          const applicant = await userStanding(tx, corp.appliedBy);
          if (applicant?.corporateAccountId && applicant.corporateAccountId !== corp.id) throw new AppError('CONFLICT', corporateMessages.applicantElsewhere);
        }
        const activated = await activateCorporateAccount(tx, actor, corp, {
          via: 'admin',
          ...(body.credit_limit !== undefined ? { creditLimitYen: body.credit_limit } : {}),
          ...(body.payment_terms ? { paymentTerms: body.payment_terms } : {}),
          reason: body.reason || null,
        });
        let applicantEmail: string | null = null;
        if (corp.appliedBy) {
          const applicant = await userStanding(tx, corp.appliedBy);
          applicantEmail = applicant?.email ?? null;
        }
        return { ...activated, applicantEmail };
      });
      for (const userId of out.affectedUserIds) deps.changes?.changed('user', userId);
      if (out.applicantEmail) {
        const p = mailer
          .send(buildCorporateActivatedMail(out.applicantEmail, out.corporate, out.previousStatus === 'suspended', deps.publicUrl))
          .catch((err) => log.warn({ err, corporateAccountId: id }, 'corporate activation mail not sent'));
        background.add(p);
        void p.finally(() => background.delete(p));
      }
      return toCorporateApplication(out.corporate);
    },

    async idle() {
      while (background.size) await Promise.all([...background]);
    },
  };
}
