import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import type { CheckoutPurpose, CompleteResult } from '@poi/shared/schemas/payments';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { inTransaction, type Tx } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import type { CurrentUser } from '../../plugins/auth';
import { writeAudit, type AuditActor } from '../audit/audit';
import { activateCorporateAccount } from '../corporate/corporate-activation';
import { hasOpenInvoice } from '../invoices/invoices.repository';
import {
  claimStripeCustomerId,
  clearCard,
  ensureBillingAccountForUser,
  ensureCorporateBillingAccount,
  findBillingAccountByUser,
  lockBillingAccount,
  saveCard,
  type BillingAccountRow,
} from '../billing-accounts/billing-accounts.repository';
import { paymentMessages } from './payment-messages';
import { findCardApplication, lockCorporateAccount, lockUser, setUserAccountType, type CorporateAccountRow } from './payments.repository';
import { idOf, requireStripe, userStripeCall, type Background } from './stripe-calls';
import type { StripeClient } from './stripe-client';

/** What a setup session carries in its metadata: whose card, for which account, for what. */
export interface SetupMeta {
  userId: string;
  billingAccountId: string;
  purpose: CheckoutPurpose;
}

export interface AppliedSetup {
  result: CompleteResult;
  /** The card the saved one replaced, to detach on Stripe's side. */
  replacedPaymentMethod: string | null;
}

export interface Checkout {
  startCheckout(user: CurrentUser, purpose: CheckoutPurpose): Promise<{ url: string }>;
  completeCheckout(user: CurrentUser, sessionId: string, actor: AuditActor): Promise<CompleteResult>;
  removeCard(user: CurrentUser, actor: AuditActor): Promise<{ removed: boolean }>;
  /**
   * Saves the card of a completed setup session on the billing account and applies the purpose
   * (upgrade, corporate activation), in one transaction with audit rows; a repeat is a no-op.
   * `first` runs first in the same transaction (the webhook stores its event); false = already
   * applied, and the answer is undefined.
   */
  applyCompletedSetup(meta: SetupMeta, pm: Stripe.PaymentMethod, actor: AuditActor, first?: (tx: Tx) => Promise<boolean>): Promise<AppliedSetup | undefined>;
  /** Detaches a replaced card on Stripe's side, in the background (a failure is only logged). */
  detachLater(paymentMethodId: string | null): void;
}

export interface CheckoutDeps {
  db: Db;
  config: Pick<Config, 'publicUrl'>;
  stripe?: StripeClient;
  log: Pick<FastifyBaseLogger, 'error' | 'info'>;
  changes?: Pick<ChangeFeed, 'changed'>;
  background: Pick<Background, 'run'>;
  /**
   * A different card was saved on the billing account (after the commit): charges what is
   * overdue or declined with it (charging.ts chargeWithNewCard), in the background.
   */
  afterCardSaved?: (billingAccountId: string) => Promise<void>;
}

/** The setup metadata of a Checkout Session of ours, or undefined for any other session. */
export function metaOf(session: { metadata?: Stripe.Metadata | null }): SetupMeta | undefined {
  const m = session.metadata ?? {};
  const purpose = m.purpose as CheckoutPurpose | undefined;
  if (!m.user_id || !m.billing_account_id || !purpose || !['card', 'upgrade_individual', 'corporate'].includes(purpose)) return undefined;
  return { userId: m.user_id, billingAccountId: m.billing_account_id, purpose };
}

/** The card of a completed setup session (its SetupIntent's PaymentMethod), made the customer's default. */
export async function setupCardOf(s: StripeClient, session: Pick<Stripe.Checkout.Session, 'setup_intent' | 'customer'>): Promise<Stripe.PaymentMethod> {
  let si = session.setup_intent;
  if (typeof si === 'string') si = await s.setupIntents.retrieve(si, { expand: ['payment_method'] });
  if (!si || si.status !== 'succeeded') throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
  let pm = si.payment_method;
  if (typeof pm === 'string') pm = await s.paymentMethods.retrieve(pm);
  if (!pm) throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
  const customer = idOf(session.customer);
  if (customer) await s.customers.update(customer, { invoice_settings: { default_payment_method: pm.id } });
  return pm;
}

/** Corporate members other than the owner and billing contacts may not change the company's card. */
function assertMayManageCard(user: CurrentUser) {
  if (user.corporateAccountId && user.corporateRole === 'member') throw new AppError('FORBIDDEN', paymentMessages.notBillingManager);
}

/** Saving and removing the card: Stripe Checkout in setup mode, and the upgrades a saved card completes. */
export function createCheckout(deps: CheckoutDeps): Checkout {
  const { db, config, stripe, log, changes, background, afterCardSaved } = deps;

  /** The Stripe Customer of a billing account, created on first need (idempotent per account). */
  async function ensureCustomer(s: StripeClient, account: BillingAccountRow): Promise<string> {
    if (account.stripeCustomerId) return account.stripeCustomerId;
    const customer = await s.customers.create(
      {
        name: account.addressee,
        ...(account.billingEmails[0] ? { email: account.billingEmails[0] } : {}),
        metadata: { billing_account_id: account.id, customer_number: account.customerNumber },
      },
      { idempotencyKey: `billing_account:${account.id}:customer` },
    );
    return claimStripeCustomerId(db, account.id, customer.id);
  }

  async function applyCompletedSetup(meta: SetupMeta, pm: Stripe.PaymentMethod, actor: AuditActor, first?: (tx: Tx) => Promise<boolean>): Promise<AppliedSetup | undefined> {
    const card = pm.card;
    if (!card) throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
    const cardView = { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year };
    let userChanged = false;
    let cardChanged = false;
    const alsoChanged: string[] = [];
    const out = await inTransaction(db, async (tx) => {
      cardChanged = false;
      if (first && !(await first(tx))) return undefined;
      const user = await lockUser(tx, meta.userId);
      if (!user) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      const account = await lockBillingAccount(tx, meta.billingAccountId);
      if (!account) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);

      let corp: CorporateAccountRow | undefined;
      if (meta.purpose === 'corporate') {
        corp = await lockCorporateAccount(tx, account.corporateAccountId ?? '00000000-0000-0000-0000-000000000000');
        if (!corp || corp.appliedBy !== user.id) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
        if (corp.status !== 'pending' && corp.status !== 'active') throw new AppError('CONFLICT', paymentMessages.corporateApplicationClosed);
      } else if (account.userId !== user.id && (!account.corporateAccountId || account.corporateAccountId !== user.corporateAccountId)) {
        throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      }

      let replaced: string | null = null;
      if (account.cardPaymentMethodId !== pm.id) {
        replaced = account.cardPaymentMethodId;
        cardChanged = true;
        await saveCard(tx, account.id, { paymentMethodId: pm.id, brand: card.brand, last4: card.last4, expMonth: card.exp_month, expYear: card.exp_year });
        await writeAudit(tx, actor, {
          action: 'billing_account.card_saved',
          targetType: 'billing_account',
          targetId: account.id,
          before: account.cardLast4 ? { brand: account.cardBrand, last4: account.cardLast4 } : null,
          after: { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year, purpose: meta.purpose },
        });
      }

      let accountType = user.accountType;
      if (meta.purpose === 'upgrade_individual' && user.accountType === 'trial') {
        accountType = 'individual';
        await setUserAccountType(tx, user.id, accountType);
        await writeAudit(tx, actor, { action: 'user.account_type_changed', targetType: 'user', targetId: user.id, before: { account_type: 'trial' }, after: { account_type: 'individual', via: 'card_saved' } });
        userChanged = true;
      }
      if (meta.purpose === 'corporate' && corp?.status === 'pending') {
        // The same activation an administrator's approval runs (corporate/corporate-activation.ts).
        const activated = await activateCorporateAccount(tx, actor, corp, { via: 'card_saved' });
        accountType = 'corporate';
        userChanged = true;
        for (const id of activated.affectedUserIds) if (id !== user.id) alsoChanged.push(id);
      }
      const result: CompleteResult = { card: cardView, purpose: meta.purpose, account_type: accountType, next: meta.purpose === 'card' ? '/billing' : '/upgrade' };
      return { result, replacedPaymentMethod: replaced };
    });
    if (cardChanged && afterCardSaved) background.run(afterCardSaved(meta.billingAccountId));
    if (userChanged) changes?.changed('user', meta.userId);
    for (const id of alsoChanged) changes?.changed('user', id);
    return out;
  }

  function detachLater(paymentMethodId: string | null) {
    if (!paymentMethodId || !stripe) return;
    background.run(stripe.paymentMethods.detach(paymentMethodId).catch((err) => log.info({ err, paymentMethodId }, 'old card not detached')));
  }

  return {
    applyCompletedSetup,
    detachLater,

    async startCheckout(user, purpose) {
      const s = requireStripe(stripe);
      let account: BillingAccountRow;
      if (purpose === 'upgrade_individual') {
        if (user.accountType !== 'trial') throw new AppError('CONFLICT', paymentMessages.alreadyUpgraded);
        account = await ensureBillingAccountForUser(db, user.id);
      } else if (purpose === 'corporate') {
        const corp = await findCardApplication(db, user.id, ['pending']);
        if (!corp) throw new AppError('CONFLICT', paymentMessages.noCorporateApplication);
        account = await ensureCorporateBillingAccount(db, corp);
      } else {
        if (user.accountType === 'trial') throw new AppError('CONFLICT', paymentMessages.trialUseUpgrade);
        assertMayManageCard(user);
        account = await ensureBillingAccountForUser(db, user.id);
      }
      const customer = await userStripeCall(log, 'customers.create', () => ensureCustomer(s, account));
      const session = await userStripeCall(log, 'checkout.sessions.create', () =>
        s.checkout.sessions.create({
          mode: 'setup',
          customer,
          currency: 'jpy',
          allowed_payment_method_types: ['card'],
          success_url: `${config.publicUrl}/payment-method/complete?session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: `${config.publicUrl}${purpose === 'card' ? '/payment-method' : '/upgrade'}`,
          metadata: { user_id: user.id, billing_account_id: account.id, purpose },
          setup_intent_data: { metadata: { user_id: user.id, billing_account_id: account.id, purpose } },
          locale: 'ja',
        }),
      );
      if (!session.url) throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.stripeDown);
      return { url: session.url };
    },

    async completeCheckout(user, sessionId, actor) {
      const s = requireStripe(stripe);
      const session = await userStripeCall(log, 'checkout.sessions.retrieve', () => s.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] }));
      const meta = metaOf(session);
      // Someone else's session (or not one of ours) is not found, as any other id.
      if (!meta || meta.userId !== user.id || session.mode !== 'setup') throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
      if (session.status !== 'complete') throw new AppError('CONFLICT', paymentMessages.sessionNotComplete);
      const pm = await userStripeCall(log, 'setup card', () => setupCardOf(s, session));
      const applied = (await applyCompletedSetup(meta, pm, actor))!;
      detachLater(applied.replacedPaymentMethod);
      return applied.result;
    },

    async removeCard(user, actor) {
      assertMayManageCard(user);
      const account = await findBillingAccountByUser(db, user.id);
      if (!account?.cardPaymentMethodId) return { removed: false };
      const s = requireStripe(stripe);
      if (await hasOpenInvoice(db, account.id)) throw new AppError('CONFLICT', paymentMessages.openInvoice);
      await userStripeCall(log, 'paymentMethods.detach', async () => {
        try {
          await s.paymentMethods.detach(account.cardPaymentMethodId!);
        } catch (err) {
          // Already detached or gone on Stripe's side: clearing ours is what is left to do.
          if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
        }
      });
      await inTransaction(db, async (tx) => {
        await clearCard(tx, account.id);
        await writeAudit(tx, actor, { action: 'billing_account.card_removed', targetType: 'billing_account', targetId: account.id, before: { brand: account.cardBrand, last4: account.cardLast4 }, after: null });
      });
      return { removed: true };
    },
  };
}
