import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { constants as zlibConstants } from 'node:zlib';
import path from 'node:path';
import compress from '@fastify/compress';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import type { DestinationStream } from 'pino';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IMPORT_MAX_BYTES } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import type { ApiError } from '@poi/shared/schemas/common';
import type { Config } from './config';
import { openDatabase, type Database } from './db/client';
import { authPlugin } from './plugins/auth';
import { securityHeadersPlugin } from './plugins/security-headers';
import { RequestLogs } from './plugins/request-logs';
import { clientErrorHandler, errorHandlerPlugin, frameworkErrors } from './plugins/error-handler';
import { documentRoute, SECURITY_SCHEMES } from './plugins/openapi';
import { circuitRateLimitStore } from './plugins/rate-limit-store';
import { createMailer, type Mailer } from './plugins/mail';
import { authRoutes } from './modules/auth/auth.routes';
import { datasetRoutes } from './modules/datasets/datasets.routes';
import { createDatasetsService } from './modules/datasets/datasets.service';
import { poiRoutes } from './modules/pois/pois.routes';
import { createPoisService } from './modules/pois/pois.service';
import { createSuggester } from './modules/pois/suggest';
import { createAuthService } from './modules/auth/auth.service';
import { healthRoutes } from './modules/health/health.routes';
import { createLifecycle, type Lifecycle } from './modules/health/lifecycle';
import { probeRoutes } from './modules/health/probes.routes';
import { createReadinessCheck } from './modules/health/readiness';
import { logRoutes } from './modules/logs/logs.routes';
import { createLogsService } from './modules/logs/logs.service';
import { adminUserRoutes } from './modules/users/admin-users.routes';
import { createAdminUsersService } from './modules/users/admin-users.service';
import { userRoutes } from './modules/users/users.routes';
import { createUsersService } from './modules/users/users.service';
import { paymentRoutes } from './modules/payments/payments.routes';
import { createPaymentsService, RETRY_JOB_INTERVAL_MS, type PaymentsService } from './modules/payments/payments.service';
import { createStripeClient } from './modules/payments/stripe-client';
import { stripeWebhookRoutes } from './modules/payments/stripe-webhook.routes';
import { connectPgChangeFeed, createChangeFeed, type ChangeFeed } from './lib/change-feed';
import { refreshPoiStatistics } from './modules/pois/pois.repository';
import { createSearchBackfill, type SearchBackfill } from './modules/pois/search-backfill';
import { createSearchIndex, SEARCH_CHANGES_PRUNE_MS, SEARCH_INDEX_POLL_MS, type SearchIndex } from './modules/pois/search-index';
import { prepareSearchColumns } from './modules/pois/search-columns';
import { createRedisCircuit, type RedisCircuit } from './lib/redis-circuit';
import { redactUrl } from './lib/redact-url';
import { createJobRunner, type JobRunner } from './lib/periodic-job';
import { loadConsolePages, pickEncoding } from './lib/console-pages';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes';
import { createApiKeysService } from './modules/api-keys/api-keys.service';
import { adminPricingRoutes } from './modules/pricing/admin-pricing.routes';
import { createAdminPricingService } from './modules/pricing/admin-pricing.service';
import { createPricingService } from './modules/pricing/pricing.service';
import { englishOpenApi } from './modules/public-api/public-api.openapi-en';
import { publicApiRoutes } from './modules/public-api/public-api.routes';
import { createPublicApiService } from './modules/public-api/public-api.service';
import { createMemoryRateLimiter, createRedisRateLimiter } from './modules/public-api/rate-limiter';
import { createSearchCache, type SearchCache } from './modules/public-api/search-cache';
import { createUsageMeter, type UsageMeter } from './modules/usage/usage-meter';
import { usageRoutes } from './modules/usage/usage.routes';
import { adminBillingRoutes } from './modules/invoices/admin-invoices.routes';
import { billingRoutes } from './modules/invoices/invoices.routes';
import { createBillingService } from './modules/invoices/invoices.service';
import { createCloseJob, untilNextClose, type CloseJob } from './modules/invoices/close-job';
import { createUsagePartitions } from './modules/usage/usage-partitions';
import { createCloseService, type CloseService } from './modules/invoices/close.service';
import { invoiceDocumentRoutes } from './modules/invoices/invoice-documents.routes';
import { adminInvoiceAdjustmentRoutes } from './modules/invoices/invoice-adjustments.routes';
import { createInvoiceAdjustmentsService } from './modules/invoices/invoice-adjustments.service';
import { createInvoiceDocumentsService } from './modules/invoices/invoice-documents.service';
import { createUsageService } from './modules/usage/usage.service';
import { createBudgetGuard, type BudgetGuard } from './modules/budgets/budget-guard';
import { budgetRoutes } from './modules/budgets/budgets.routes';
import { createBudgetsService } from './modules/budgets/budgets.service';
import { adminTransferRoutes } from './modules/transfers/admin-transfers.routes';
import { adminCorporateRoutes } from './modules/corporate/admin-corporate.routes';
import { adminRevenueRoutes } from './modules/revenue/admin-revenue.routes';
import { createAdminRevenueService } from './modules/revenue/admin-revenue.service';
import { createAdminCorporateService } from './modules/corporate/admin-corporate.service';
import { launchSettingGaps } from './modules/commerce/commerce';
import { commerceRoutes } from './modules/commerce/commerce.routes';
import { createCorporateService, type CorporateService } from './modules/corporate/corporate.service';
import { createTransfersService, untilAfterMidnight, type TransfersService } from './modules/transfers/transfers.service';
import { upgradeRoutes } from './modules/corporate/upgrade.routes';
import { adminPlanRoutes, planRoutes } from './modules/plans/plans.routes';
import { createPlansService, PLAN_CHANGES_JOB_INTERVAL_MS, type PlansService } from './modules/plans/plans.service';
import { createMetrics } from './modules/metrics/metrics';
import { metricsRoutes } from './modules/metrics/metrics.routes';

// Validation messages of schemas without their own Japanese text come out in Japanese too.
z.config(z.locales.ja());

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    /** The public API's usage meter (tests flush it to read what was billed). */
    usageMeter: UsageMeter;
    /** Tells this instance's caches that rows changed (keys, users, datasets, pricing). */
    changes: ChangeFeed;
    /** Recent public search answers (the benchmark reads its hit counters). */
    searchCache: SearchCache;
    /** Budgets' in-memory view (the benchmark reloads an account it set up with SQL). */
    budgetGuard: BudgetGuard;
    /** The Redis of the shared rate limits, when REDIS_URL is set (/healthz reports its state). */
    redis: RedisCircuit | undefined;
    /** The server's periodic jobs, all listed in buildApp (their state: list()). */
    jobs: JobRunner;
    /** The monthly close (service and its in-process job; tests drive them directly). */
    billingClose: { service: CloseService; job: CloseJob };
    /** Card payments (Stripe): the close's afterIssue calls chargeInvoice; tests drive runDueRetries. */
    payments: PaymentsService;
    /** Bank transfers (confirmation, the daily overdue marker; tests call markOverdue with a date). */
    transfers: TransfersService;
    /** Corporate applications and their activation (tests wait for its mails with idle()). */
    corporate: CorporateService;
    /** Leaving a plan: cancellations at month end (tests call applyDue with an instant). */
    plans: PlansService;
    /** Rewrites the search columns of POIs written by an older folding (migration 0014; /healthz reports it). */
    searchBackfill: SearchBackfill;
    /** The public API's point searches from memory, kept in step by the change log (/healthz reports it). */
    searchIndex: SearchIndex | undefined;
  }
}

export interface BuildOptions {
  /** An already opened database (tests); otherwise one is opened from the config. */
  database?: Database;
  mailer?: Mailer;
  /** Where the pino log goes (default: stdout). */
  logStream?: DestinationStream;
  /** The process' phase for /readyz (server.ts moves it); without it the app is serving once built. */
  lifecycle?: Lifecycle;
  /** The HTTP server to answer on (server.ts: the start-up listener's, already listening). */
  serverFactory?: FastifyServerFactory;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const HOUR = 60 * 60 * 1000;

const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/** Fastify's request log fields, with sign-in secrets kept out of the URL. */
function serializeRequest(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
      serializers: { req: serializeRequest },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    logController: new RequestLogs(),
    // A hop count trusts that many proxies nearest the server (what Fastify does with a number).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // Long path parameters reach their route, whose schema refuses them (after authentication);
    // Node's 16 KB header limit bounds the URL anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    frameworkErrors,
    clientErrorHandler,
    // A request on a kept-alive connection during the drain (SIGTERM) is answered, with
    // Connection: close (probes.routes.ts), rather than with Fastify's English 503.
    return503OnClosing: false,
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
  }).withTypeProvider<ZodTypeProvider>();
  // Before any route: every route gets its duration series (GET /metrics).
  const metrics = createMetrics();
  metrics.instrument(app);

  // The API speaks JSON (and multipart for the import): a text/plain body is a 415, not a string
  // for the schema to puzzle over.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  const database =
    options.database ??
    (await openDatabase({
      url: config.databaseUrl,
      pgliteDir: path.join(config.dataDir, 'pglite'),
      onIdleError: (err) => app.log.warn({ err }, 'idle PostgreSQL connection lost'),
      onMigrating: (running) => options.lifecycle?.migrating(running),
    }));
  const ownsDatabase = !options.database;
  const mailer = options.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log: app.log, timeoutMs: config.smtpTimeoutMs });
  app.decorate('config', config);
  app.decorate('database', database);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'POI Cloud API', version: '1.0.0', description: 'POI Cloud のコンソールAPIと公開検索API', license: { name: 'Proprietary' } },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: documentRoute,
  });
  await app.register(securityHeadersPlugin, { contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES } });
  // Fast settings: at brotli's default quality (11) compressing a search answer took longer than
  // the search. Answers under 16 KB (a page of search results) go out as they are: measured, the
  // compression and decompression of such an answer cost more than sending it on a LAN.
  await app.register(compress, {
    global: true,
    threshold: 16 * 1024,
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 5 },
  });
  const redis = config.redisUrl ? createRedisCircuit({ url: config.redisUrl, log: app.log }) : undefined;
  app.decorate('redis', redis);
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { store: circuitRateLimitStore(redis) } : {}),
    errorResponseBuilder: (_request, context) => {
      const body: ApiError = { success: false, error: { code: 'RATE_LIMITED', message: messages.tooManyRequests } };
      return Object.assign(new Error(messages.tooManyRequests), { statusCode: context.statusCode, body });
    },
  });
  await app.register(multipart, { limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024 } });
  await app.register(errorHandlerPlugin);

  // Readings (kuromoji's dictionary) are loaded before the first POI write, so each write stores them.
  await prepareSearchColumns();
  const searchBackfill = createSearchBackfill({ db: database.db, log: app.log, afterRun: () => refreshPoiStatistics(database.db) });
  app.decorate('searchBackfill', searchBackfill);

  const changes = createChangeFeed();
  // Other instances on the same PostgreSQL hear of every change at once (a suspension, a revoked key).
  const changeLink = database.engine === 'postgres' && database.url ? connectPgChangeFeed(changes, database.url, app.log) : undefined;
  await changeLink?.ready;
  const authService = createAuthService({ db: database.db, config, mailer, log: app.log, changes });
  const usersService = createUsersService({ db: database.db, changes });
  const adminUsers = createAdminUsersService({ db: database.db, changes });
  const adminCorporate = createAdminCorporateService({ db: database.db, changes });
  const logsService = createLogsService({ db: database.db });
  const stripe = createStripeClient(config);
  const paymentsService = createPaymentsService({ db: database.db, config, mailer, log: app.log, stripe, changes });
  if (!paymentsService.cardPaymentsAvailable) app.log.warn('STRIPE_SECRET_KEY is not set: card payments are off (bank transfer still works)');
  const datasetsService = createDatasetsService({ db: database.db, changes, onPriced: (id) => paymentsService.syncDatasetProduct(id) });
  const searchIndex = config.searchIndexMaxMb > 0 ? createSearchIndex({ db: database.db, url: database.url, maxMb: config.searchIndexMaxMb, log: app.log, changes, snapshotDir: config.searchIndexSnapshotDir }) : undefined;
  app.decorate('searchIndex', searchIndex);
  const poisService = metrics.countImports(createPoisService({
    db: database.db,
    knnDb: database.knnDb,
    engine: database.engine,
    datasetsService,
    changes,
    log: app.log,
    cursorSecret: config.appSecret,
    searchIndex,
  }));
  const pricingService = createPricingService({ db: database.db, changes });
  const apiKeysService = createApiKeysService({ db: database.db, pricing: pricingService, changes });
  // The budget guard follows the meter: what it writes, and a refresh after each flush run.
  const budgetGuard = createBudgetGuard({ db: database.db, mailer, log: app.log, publicUrl: config.publicUrl, flush: () => meter.flush(), onStop: metrics.budgetStopped });
  const meter = createUsageMeter({
    db: database.db,
    log: app.log,
    onFlushed: (ids, at) => apiKeysService.touch(ids, at),
    onWritten: (events) => budgetGuard.written(events),
    afterFlush: () => budgetGuard.afterFlush(),
  });
  const budgetsService = createBudgetsService({ db: database.db, meter, guard: budgetGuard });
  const invoiceDocumentsService = createInvoiceDocumentsService({ db: database.db, config, log: app.log });
  const usageService = createUsageService({ db: database.db, pricing: pricingService, meter });
  const publicApi = createPublicApiService({
    db: database.db,
    apiKeys: apiKeysService,
    pricing: pricingService,
    meter,
    limiter: redis ? createRedisRateLimiter(redis) : createMemoryRateLimiter(),
    changes,
    budgets: budgetGuard,
  });
  const billingService = createBillingService({ db: database.db, config, pricing: pricingService });
  // A card invoice is charged as soon as its issuing transaction commits (docs/billing.md "Card payments", "Charging").
  const closeService = createCloseService({
    db: database.db,
    config,
    pricing: pricingService,
    mailer,
    log: app.log,
    afterIssue: (ids) => paymentsService.chargeInvoices(ids),
    // Four of the pool's 20 connections at most: the close of 100,000 accounts within minutes, requests still served.
    concurrency: database.engine === 'postgres' ? 4 : 1,
  });
  const transfersService = createTransfersService({ db: database.db, mailer, log: app.log, publicUrl: config.publicUrl });
  const corporateService = createCorporateService({ db: database.db, pricing: pricingService, mailer, log: app.log, publicUrl: config.publicUrl, changes });
  const launchGaps = launchSettingGaps(config);
  if (launchGaps.length) {
    app.log.warn({ missing: launchGaps }, 'the 特定商取引法 notice (/commerce), qualified invoices or bank transfers lack settings: set these before going live');
  }
  const closeJob = createCloseJob({ database, close: closeService });
  app.decorate('billingClose', { service: closeService, job: closeJob });
  app.decorate('usageMeter', meter);
  app.decorate('budgetGuard', budgetGuard);
  app.decorate('changes', changes);
  app.decorate('payments', paymentsService);
  app.decorate('transfers', transfersService);
  app.decorate('corporate', corporateService);
  const plansService = createPlansService({ db: database.db, changes });
  app.decorate('plans', plansService);
  await app.register(authPlugin, { authenticate: (token) => authService.authenticate(token) });

  await app.register(healthRoutes);
  const lifecycle = options.lifecycle ?? createLifecycle('serving');
  await app.register(probeRoutes, { lifecycle, readiness: createReadinessCheck({ database, lifecycle, searchIndex }) });
  await app.register(
    async (api) => {
      // Console answers are one user's data: no browser or proxy cache may keep them.
      api.addHook('onRequest', async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
      });
      await api.register(authRoutes, { authIpLimit: config.authIpLimit, authService });
      await api.register(userRoutes, { usersService });
      await api.register(adminUserRoutes, { adminUsers });
      await api.register(logRoutes, { logsService });
      await api.register(datasetRoutes, { datasetsService });
      await api.register(poiRoutes, { poisService });
      await api.register(apiKeyRoutes, { apiKeysService });
      await api.register(usageRoutes, { usageService });
      await api.register(adminPricingRoutes, { pricingService, adminPricing: createAdminPricingService({ db: database.db, pricing: pricingService, changes }) });
      await api.register(billingRoutes, { billingService });
      await api.register(adminBillingRoutes, { closeService });
      await api.register(budgetRoutes, { budgetsService });
      await api.register(paymentRoutes, { paymentsService });
      await api.register(invoiceDocumentRoutes, { invoiceDocumentsService });
      await api.register(adminInvoiceAdjustmentRoutes, { invoiceAdjustments: createInvoiceAdjustmentsService({ db: database.db }) });
      await api.register(adminTransferRoutes, { transfersService });
      await api.register(adminCorporateRoutes, { adminCorporate, corporateService });
      await api.register(adminRevenueRoutes, { adminRevenue: createAdminRevenueService({ db: database.db, config }) });
      await api.register(planRoutes, { plansService });
      await api.register(adminPlanRoutes, { plansService });
      await api.register(upgradeRoutes, { corporateService, cardPaymentsAvailable: paymentsService.cardPaymentsAvailable });
      // Public: the 特定商取引法 notice is read before signing up.
      await api.register(commerceRoutes, { config });
    },
    { prefix: '/console/v1' },
  );
  const searchCache = createSearchCache();
  changes.on('dataset', () => searchCache.clear());
  app.decorate('searchCache', searchCache);
  await app.register(stripeWebhookRoutes, { paymentsService });
  const suggester = createSuggester({ db: database.db, searchIndex, onAnswered: metrics.suggestAnswered });
  await app.register(publicApiRoutes, { prefix: '/api/v1', publicApi, poisService, searchCache, suggester, onSearch: metrics.searchAnswered });

  // ?lang=en: the public API's part in English (/docs/api?lang=en), made once from the document.
  let englishDocument: object | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (request) =>
    (request.query as { lang?: unknown }).lang === 'en' ? (englishDocument ??= englishOpenApi(app.swagger() as never).document) : app.swagger(),
  );

  registerConsole(app, config.webDistDir);

  // Every periodic job of this server, in one place (lib/periodic-job: no overlapping runs, one
  // log line per failure, stop waits for a run under way). Started once the services they use are.
  const jobs = createJobRunner(app.log);
  app.decorate('jobs', jobs);
  metrics.watch({ usage: meter, jobs, searchIndex, redis, database });
  await app.register(metricsRoutes, { metrics, token: config.metricsToken });
  // The usage meter's flush: a failed flush keeps its events and is tried again with backoff.
  jobs.add({ name: 'usage-flush', every: meter.intervalMs, runAtStart: false, retryAfter: meter.retryAfter, run: () => meter.flush() });
  if (config.billingJobs) {
    // 00:05 JST on the 1st, and at once for any past month not yet closed (a restart resumes).
    jobs.add({ name: 'monthly-close', every: untilNextClose, run: () => closeJob.runDue() });
    // Cancellations whose month has ended: the account becomes trial within a minute of 00:00 JST
    // on the 1st (docs/billing.md "Cancel and downgrade"), and at start for any already due.
    jobs.add({
      name: 'plan-changes',
      every: PLAN_CHANGES_JOB_INTERVAL_MS,
      run: () => plansService.applyDue(),
      onSuccess: (applied) => {
        if (applied) app.log.info({ applied }, 'scheduled plan changes applied');
      },
    });
    // usage_events' coming months' partitions, and closed months past USAGE_RAW_RETENTION_MONTHS
    // dropped (docs/billing.md "Usage data"); at start, then every 6 hours.
    const usagePartitions = createUsagePartitions({ db: database.db, retentionMonths: config.usageRawRetentionMonths, log: app.log });
    jobs.add({ name: 'usage-partitions', every: 6 * HOUR, run: () => usagePartitions.run() });
    // Shortly after the next Japan-time midnight.
    jobs.add({
      name: 'overdue-marker',
      every: untilAfterMidnight,
      run: () => transfersService.markOverdue(),
      onSuccess: ({ marked }) => {
        if (marked) app.log.info({ marked }, 'bank-transfer invoices past their due date marked overdue');
      },
    });
  }
  if (config.billingJobs && stripe) {
    // Card invoices whose retry (retry-schedule.ts) is due are charged again.
    jobs.add({ name: 'card-retries', every: RETRY_JOB_INTERVAL_MS, runAtStart: false, run: () => paymentsService.runDueRetries() });
  }
  if (searchIndex) {
    jobs.add({ name: 'search-index-poll', every: SEARCH_INDEX_POLL_MS, runAtStart: false, run: () => searchIndex.poll() });
    jobs.add({ name: 'search-changes-prune', every: SEARCH_CHANGES_PRUNE_MS, runAtStart: false, run: () => searchIndex.prune() });
  }
  // Housekeeping: expired logs (30 days) and old sign-in challenges; its first run is part of
  // start-up (onReady waits for it), then every 6 hours.
  const housekeeping = jobs.add({
    name: 'housekeeping',
    every: 6 * HOUR,
    runAtStart: false,
    run: async () => {
      const removed = await logsService.deleteExpired();
      await authService.pruneChallenges();
      return removed;
    },
    onSuccess: (removed) => {
      if (removed) app.log.info({ removed }, 'expired frontend logs deleted');
    },
  });
  app.addHook('onReady', async () => {
    // Budgets are in memory before the first search is served.
    await budgetGuard.start();
    searchBackfill.start();
    searchIndex?.start();
    // A failure is logged by the runner and tried again in 6 hours; start-up goes on.
    await housekeeping.runNow().catch(() => undefined);
    jobs.start();
  });
  app.addHook('onClose', async () => {
    // No job runs after this: the meter's last flush and the database close come after it.
    await jobs.stop();
    await changeLink?.close();
    await searchBackfill.stop();
    await searchIndex?.stop();
    // Every metered search is stored before the database closes (SIGTERM runs this too).
    await meter.stop().catch(() => undefined);
    await poisService.settled();
    await paymentsService.stop();
    await transfersService.stop();
    await corporateService.idle();
    mailer.close();
    redis?.close();
    if (ownsDatabase) await database.close();
  });

  return app;
}

/** Serves the built console with history-mode fallback; API paths and missing files stay JSON 404s. */
function registerConsole(app: FastifyInstance, webDistDir: string): void {
  const indexFile = path.join(webDistDir, 'index.html');
  const hasConsole = existsSync(indexFile);
  // index.html per path: a signed-in screen's paints the shell's top bar at once (lib/console-pages.ts).
  const pageFor = hasConsole ? loadConsolePages(webDistDir) : undefined;
  if (hasConsole) {
    void app.register(fastifyStatic, {
      root: webDistDir,
      wildcard: false,
      index: false,
      // The console build ships .br/.gz beside each file (apps/web/vite.config.ts): sent as they are.
      preCompressed: true,
      setHeaders: (res, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        // One URL, a brotli, gzip or plain body depending on the request: caches must keep them apart.
        res.header('Vary', 'Accept-Encoding');
      },
    });
  } else {
    app.log.warn({ webDistDir }, 'console build not found: only the API is served (run npm run build)');
  }

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const body: ApiError = { success: false, error: { code: 'NOT_FOUND', message: messages.notFound, request_id: String(request.id) } };
    return reply.status(404).header('Cache-Control', 'no-store').send(body);
  };

  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isApi = /^\/(console|api)(\/|$)/.test(pathname);
    const hasExtension = /\.[A-Za-z0-9]+$/.test(pathname);
    if (!pageFor || isApi || hasExtension || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return notFound(request, reply);
    }
    const page = pageFor(pathname);
    const encoding = pickEncoding(request.headers['accept-encoding']);
    reply.header('Cache-Control', 'no-cache').header('Vary', 'Accept-Encoding').type('text/html; charset=utf-8');
    if (encoding) reply.header('Content-Encoding', encoding);
    return reply.send(encoding ? page[encoding] : page.html);
  });
}
