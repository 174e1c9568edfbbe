import { afterAll, beforeAll } from 'vitest';
import { createTestContext, type TestContext } from '../helpers';
import { startFakeStripe, type FakeStripe } from './fake-stripe';

/**
 * Starts the fake Stripe and a listening test context on it (webhooks delivered to the app) before
 * the file's tests, runs `ready` on both, and closes both after the tests.
 */
export function withStripeTestContext(env: Record<string, string>, ready: (ctx: TestContext, fake: FakeStripe) => Promise<void> | void): void {
  let fake: FakeStripe | undefined;
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    fake = await startFakeStripe();
    ctx = await createTestContext({ ...fake.env(), ...env });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (ctx.app.server.address() as { port: number }).port;
    fake.setWebhookUrl(`http://127.0.0.1:${port}/webhooks/stripe`);
    await ready(ctx, fake);
  });
  afterAll(async () => {
    await ctx?.close();
    await fake?.close();
  });
}
