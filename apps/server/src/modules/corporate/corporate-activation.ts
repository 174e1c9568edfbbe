import type { Executor } from '../../db/client';
import { writeAudit, type AuditActor } from '../audit/audit';
import { ensureCorporateBillingAccount, type BillingAccountRow } from '../billing-accounts/billing-accounts.repository';
import { activateCorporateRow, corporateMemberIds, lockUser, setBillingPaymentMethod, setUserMembership, type CorporateAccountRow } from './corporate.repository';

export type { CorporateAccountRow };

export interface ActivationOptions {
  /** 'card_saved': the applicant's card was saved (payments); 'admin': an administrator approved or reactivated. */
  via: 'card_saved' | 'admin';
  /** Set on admin approval; undefined leaves the stored value. */
  creditLimitYen?: number | null;
  paymentTerms?: string;
  reason?: string | null;
  /** The audit action of the account's row (default: activated or reactivated). */
  auditAction?: string;
}

export interface ActivationResult {
  corporate: CorporateAccountRow;
  billing: BillingAccountRow;
  /** The applicant made owner (a pending application only), or null. */
  applicantId: string | null;
  /** Every user whose account changed or whose access follows the account (caches to refresh). */
  affectedUserIds: string[];
  previousStatus: CorporateAccountRow['status'];
}

/**
 * Activates a corporate account, in the caller's transaction with its audit rows — the ONE
 * activation used by both paths (docs/billing.md "Upgrades and corporate accounts"): the card of a card
 * application saved (payments), and an administrator approving an application (any payment
 * method) or reactivating a suspended account. A pending application's applicant becomes the
 * account's owner (account type corporate); the corporate billing account is created with the
 * application's payment method. The caller has locked `corp` FOR UPDATE and checked that its
 * status is 'pending' or 'suspended'.
 */
export async function activateCorporateAccount(ex: Executor, actor: AuditActor, corp: CorporateAccountRow, options: ActivationOptions): Promise<ActivationResult> {
  if (corp.status !== 'pending' && corp.status !== 'suspended') throw new Error(`corporate account ${corp.id} is ${corp.status}`);
  const corporate = await activateCorporateRow(ex, corp.id, {
    ...(options.via === 'admin' ? { decidedBy: actor.id } : {}),
    statusReason: options.reason ?? null,
    ...(options.creditLimitYen !== undefined ? { creditLimitYen: options.creditLimitYen } : {}),
    ...(options.paymentTerms ? { paymentTerms: options.paymentTerms } : {}),
  });

  let applicantId: string | null = null;
  const affected: string[] = [];
  if (corp.status === 'pending' && corp.appliedBy) {
    const applicant = await lockUser(ex, corp.appliedBy);
    if (applicant) {
      applicantId = applicant.id;
      await setUserMembership(ex, applicant.id, { accountType: 'corporate', corporateAccountId: corp.id, corporateRole: 'owner' });
      await writeAudit(ex, actor, {
        action: 'user.account_type_changed',
        targetType: 'user',
        targetId: applicant.id,
        before: { account_type: applicant.accountType, corporate_account_id: applicant.corporateAccountId, corporate_role: applicant.corporateRole },
        after: { account_type: 'corporate', corporate_account_id: corp.id, corporate_role: 'owner' },
      });
    }
  }
  for (const id of await corporateMemberIds(ex, corp.id)) affected.push(id);
  if (applicantId && !affected.includes(applicantId)) affected.push(applicantId);

  let billing = await ensureCorporateBillingAccount(ex, corporate);
  if (corp.status === 'pending' && billing.paymentMethod !== corp.paymentMethod) {
    billing = await setBillingPaymentMethod(ex, billing.id, corp.paymentMethod);
  }
  await writeAudit(ex, actor, {
    action: options.auditAction ?? (corp.status === 'pending' ? 'corporate_account.activated' : 'corporate_account.reactivated'),
    targetType: 'corporate_account',
    targetId: corp.id,
    before: { status: corp.status, credit_limit: corp.creditLimitYen, payment_terms: corp.paymentTerms },
    after: {
      status: 'active',
      payment_method: corp.paymentMethod,
      credit_limit: corporate.creditLimitYen,
      payment_terms: corporate.paymentTerms,
      via: options.via,
      ...(options.reason ? { reason: options.reason } : {}),
    },
  });
  return { corporate, billing, applicantId, affectedUserIds: affected, previousStatus: corp.status };
}
