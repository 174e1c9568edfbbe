import Stripe from 'stripe';
import type { Config } from '../../config';

/**
 * The Stripe API version this code is written against, pinned so that an account-level upgrade
 * on Stripe's side never changes what the server receives (docs/billing.md "Card payments").
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' as const;

export type StripeClient = Stripe;

/**
 * The Stripe SDK client, or undefined when STRIPE_SECRET_KEY is unset (card features then answer
 * a Japanese message; everything else works). STRIPE_API_BASE points it elsewhere (the tests'
 * fake Stripe on 127.0.0.1; config allows http: only on a loopback host).
 */
export function createStripeClient(config: Config): StripeClient | undefined {
  const key = config.stripe.secretKey;
  if (!key) return undefined;
  const base = config.stripe.apiBase ? new URL(config.stripe.apiBase) : undefined;
  return new Stripe(key, {
    apiVersion: STRIPE_API_VERSION,
    typescript: true,
    telemetry: false,
    // One retry of a network failure (same idempotency key); a call never hangs a request long.
    maxNetworkRetries: 1,
    timeout: 20_000,
    ...(base
      ? {
          host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: base.port || (base.protocol === 'http:' ? 80 : 443),
          protocol: base.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
}
