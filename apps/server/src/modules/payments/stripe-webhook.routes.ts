import type { FastifyPluginAsync } from 'fastify';
import type { PaymentsService } from './payments.service';

/**
 * POST /webhooks/stripe (outside /console/v1). The signature covers the exact bytes Stripe sent,
 * so this route's own content-type parser keeps the body as a Buffer (only inside this plugin;
 * every other route still parses JSON). 400 on a missing or bad signature; a duplicate event is a
 * 200 no-op.
 */
export const stripeWebhookRoutes: FastifyPluginAsync<{ paymentsService: PaymentsService }> = async (app, { paymentsService }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));

  app.post('/webhooks/stripe', { schema: { hide: true } }, async (request) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const signature = request.headers['stripe-signature'];
    const result = await paymentsService.handleWebhook(raw, typeof signature === 'string' ? signature : undefined);
    request.log.info({ type: result.type, duplicate: result.duplicate, ignored: result.ignored }, 'stripe webhook');
    return { received: true, duplicate: result.duplicate, ...(result.ignored ? { ignored: true } : {}) };
  });
};
