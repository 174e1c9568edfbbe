import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import type { ChangeFeed } from '../../lib/change-feed';
import type { Mailer } from '../../plugins/mail';
import { createCharging, type Charging } from './charging';
import { createCheckout, type Checkout } from './checkout';
import { createPayNow, type PayNow } from './pay-now';
import { createProducts, type Products } from './products';
import { createBackground } from './stripe-calls';
import type { StripeClient } from './stripe-client';
import { createStripeWebhooks, type StripeWebhooks } from './stripe-webhooks';

export { RETRY_JOB_INTERVAL_MS } from './charging';

/**
 * Card payments (Stripe), as the routes, the close and the tests see them: the use cases of
 * checkout.ts (saving and removing the card), charging.ts (charges and retries), stripe-webhooks.ts
 * and products.ts, composed over one background-work tracker.
 */
export interface PaymentsService
  extends Pick<Checkout, 'startCheckout' | 'completeCheckout' | 'removeCard'>,
    Charging,
    PayNow,
    StripeWebhooks,
    Products {
  /** STRIPE_SECRET_KEY is set: card features work. */
  readonly cardPaymentsAvailable: boolean;
  /** Waits for background work (product syncs, mails, detaching replaced cards) started so far. */
  idle(): Promise<void>;
  /** Shutdown: waits for the background work under way. */
  stop(): Promise<void>;
}

export interface PaymentsDeps {
  db: Db;
  config: Pick<Config, 'stripe' | 'publicUrl'>;
  mailer: Pick<Mailer, 'send'>;
  log: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>;
  stripe?: StripeClient;
  changes?: Pick<ChangeFeed, 'changed'>;
}

export function createPaymentsService(deps: PaymentsDeps): PaymentsService {
  const { db, config, mailer, log, stripe, changes } = deps;
  const background = createBackground(log);
  // A newly saved card pays what is overdue or declined at once (charging is made just below).
  const checkout = createCheckout({ db, config, stripe, log, changes, background, afterCardSaved: (accountId) => charging.chargeWithNewCard(accountId) });
  const charging = createCharging({ db, config, stripe, mailer, log, background });
  const payNow = createPayNow({ db, config, stripe, log });
  const webhooks = createStripeWebhooks({ db, config, stripe, log, checkout });
  const products = createProducts({ db, stripe, log, background });

  return {
    cardPaymentsAvailable: Boolean(stripe),
    startCheckout: checkout.startCheckout,
    completeCheckout: checkout.completeCheckout,
    removeCard: checkout.removeCard,
    chargeInvoice: charging.chargeInvoice,
    chargeInvoices: charging.chargeInvoices,
    runDueRetries: charging.runDueRetries,
    chargeWithNewCard: charging.chargeWithNewCard,
    payInvoice: payNow.payInvoice,
    handleWebhook: webhooks.handleWebhook,
    syncDatasetProduct: products.syncDatasetProduct,
    idle: background.idle,
    stop: background.idle,
  };
}
