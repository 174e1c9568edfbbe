import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import { AppError } from '../../lib/errors';
import { paymentMessages } from './payment-messages';
import type { StripeClient } from './stripe-client';

/** A Stripe failure that is not the customer's doing: unreachable, 5xx, rate limit, bad key. */
export function isStripeOutage(err: unknown): boolean {
  return (
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    err instanceof Stripe.errors.StripeAuthenticationError ||
    (err instanceof Stripe.errors.StripeError && (err.statusCode ?? 500) >= 500)
  );
}

export const isMissing = (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing';

export const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === 'string' ? v : v.id);

export function requireStripe(stripe: StripeClient | undefined): StripeClient {
  if (!stripe) throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.cardUnavailable);
  return stripe;
}

/** Runs a Stripe call from a user's request: an outage becomes a clear 503, a missing object a 404. */
export async function userStripeCall<T>(log: Pick<FastifyBaseLogger, 'error'>, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (isMissing(err)) throw new AppError('NOT_FOUND', paymentMessages.sessionNotFound);
    log.error({ err, what }, 'Stripe call failed');
    throw new AppError('SERVICE_UNAVAILABLE', paymentMessages.stripeDown);
  }
}

/** Work started after a request or a commit (product creation, mails, detaching an old card), awaited by idle(). */
export interface Background {
  run(p: Promise<unknown>): void;
  /** Waits for everything started so far, and for what that started in turn. */
  idle(): Promise<void>;
}

export function createBackground(log: Pick<FastifyBaseLogger, 'warn'>): Background {
  const running = new Set<Promise<unknown>>();
  return {
    run(p) {
      const tracked = p.catch((err) => log.warn({ err }, 'payments background task failed'));
      running.add(tracked);
      void tracked.finally(() => running.delete(tracked));
    },
    async idle() {
      while (running.size) await Promise.all([...running]);
    },
  };
}
