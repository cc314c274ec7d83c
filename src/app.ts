import Koa from 'koa';
import type { Locale } from './i18n/locale.ts';
import { logoRoutes } from './accounts/logo-routes.ts';
import { shopStorefrontUrl } from './shopify/shops.ts';
import { accountSettingsRoutes } from './accounts/routes.ts';
import { findStoreBranding } from './accounts/store-branding.ts';
import { findAccountLocale } from './accounts/locale.ts';
import type { Config } from './config.ts';
import type { CarrierCode } from './carriers/carrier-code.ts';
import { carrierVerifier } from './carriers/carrier-verifier.ts';
import type { CarrierClient } from './carriers/clients/types.ts';
import type { CarrierSandbox } from './carriers/sandbox/index.ts';
import type { DatabaseHandle } from './db/database.ts';
import type { Redis } from 'ioredis';
import { basicAuth } from './http/basic-auth.ts';
import { rateLimit } from './http/rate-limit.ts';
import { refuseUnknownMethods } from './http/known-methods.ts';
import { allowedMethodsOf } from './http/method-not-allowed.ts';
import { noStoreUnder } from './http/no-store.ts';
import { isUnder, outside } from './http/outside.ts';
import { FailedAuthLimit } from './http/failed-auth-limit.ts';
import { favicon } from './http/favicon.ts';
import { bodyReadLimits } from './http/body-reads.ts';
import { errorHandler } from './http/error-handler.ts';
import { requestContext } from './http/request-context.ts';
import type { Logger } from './logger.ts';
import type { SendDispatcher } from './notifications/dispatcher.ts';
import type { EmailChannel } from './notifications/email.ts';
import type { MessageTemplates } from './notifications/messages/message-templates.ts';
import { resendRoutes } from './notifications/routes.ts';
import { emailEventRoutes } from './notifications/email-events/email-event-routes.ts';
import type { EmailEvents } from './notifications/email-events/email-events.ts';
import { createNotifications } from './notifications/module.ts';
import { recipientVideoInProgress, recipientVideoLeft, thanksSendStarted } from './notifications/sends.ts';
import type { OrderRow } from './orders/serializer.ts';
import { thanksSection } from './thanks/pages.ts';
import { thanksRoutes } from './thanks/routes.ts';
import { ThanksService } from './thanks/service.ts';
import type { NotWatchedNotes } from './notifications/not-watched.ts';
import { apiReferenceRoutes } from './openapi/routes.ts';
import { OrderOutbox } from './orders/outbox.ts';
import { orderRoutes } from './orders/routes.ts';
import { statementRoutes } from './billing/statement-routes.ts';
import { ShopifyBilling } from './billing/shopify-billing.ts';
import { shopifyBillingRoutes } from './billing/shopify-routes.ts';
import { enqueueUsageCharge, Queues } from './queues/queues.ts';
import { createRedisConnection } from './redis/connection.ts';
import { IntakeReportBoard } from './shopify/intake/intake-reports.ts';
import {
  adminApiRoutes,
  appHomeRoutes,
  createShopifyServices,
  queueBatchEnqueuer,
  queueEnqueuer,
  shopifyAccountRoutes,
  shopifyExtensionRoutes,
  shopifyRoutes,
  shopifyWebhookIntake,
  type ShopifyServices,
} from './shopify/index.ts';
import { tokenCipherFor } from './shopify/auth/token-key-file.ts';
import { httpMetrics } from './operations/http-metrics.ts';
import { Metrics } from './operations/metrics.ts';
import { operationsRoutes, QUEUE_DASHBOARD_PATH, queueDashboard } from './operations/routes.ts';
import { registerScrapeGauges } from './operations/scrape.ts';
import type { ShopifyDevelopment } from './shopify/dev/index.ts';
import { createVideos } from './videos/module.ts';
import { videoApiRoutes, videoPageRoutes } from './videos/routes.ts';
import { ResumableUploads } from './videos/uploads/resumable-uploads.ts';
import { sitePageRoutes } from './site/pages.ts';
import { UploadLimit } from './videos/uploads/upload-limit.ts';
import type { VideoService, VideoProcessingQueue } from './videos/service.ts';
import type { VideoStorage } from './videos/storage/storage.ts';
import { OrderService, type TrackingNumberVerifier } from './orders/service.ts';
import { carrierEstimate } from './tracking/trackings.ts';
import { createCarrierAccess, createTracking } from './tracking/module.ts';
import type { TrackingPoller } from './tracking/poller.ts';
import type { PushEvents } from './tracking/push-events.ts';
import type { PushSubscriptions } from './tracking/push-subscriptions.ts';
import type { PushCredentials } from './tracking/push-credentials.ts';
import { pushRoutes } from './tracking/push-routes.ts';

/** Everything the processes share, built once by the composition root. */
export interface Services {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  orders: OrderService;
  /** Order events waiting for their subscribers; the workers' relay hands them over. */
  orderOutbox: OrderOutbox;
  poller: TrackingPoller;
  /** Carrier push (docs/tracking.md "Push"): subscriptions, stored events, the webhook credentials. */
  push: {
    subscriptions: PushSubscriptions;
    events: PushEvents;
    ups: PushCredentials | null;
    /** USPS Subscriptions-Tracking's listener secret; null → USPS is polled only. */
    usps: { secret: string } | null;
    /** FedEx AIV's webhook project security token; null → FedEx is polled only. */
    fedex: { securityToken: string } | null;
  };
  carriers: Record<CarrierCode, CarrierClient>;
  /** Carriers without credentials; they run against `carrierSandbox`. */
  sandboxedCarriers: CarrierCode[];
  /** The fake carrier APIs, mounted at /sandbox, when any carrier lacks credentials. */
  carrierSandbox: CarrierSandbox | null;
  dispatcher: SendDispatcher;
  /** E-mail providers' events (bounces), stored by the webhooks and applied after (docs/notifications.md "Bounces"). */
  emailEvents: EmailEvents;
  /** The three-day "not watched yet" checks, decided on the send dispatch tick. */
  notWatched: NotWatchedNotes;
  videos: VideoService;
  /** The recipient's thank-you reply (src/thanks/). */
  thanks: ThanksService;
  videoStorage: VideoStorage;
  /** Where uploads are handed for processing (BullMQ on REDIS_URL). */
  videoQueue: VideoProcessingQueue;
  shopify: ShopifyServices;
  /** Shopify shops' revenue share through Shopify's Billing API. */
  billing: ShopifyBilling;
  /**
   * The local Shopify (mounted at /sandbox/shopify) and App Bridge's stand-in, on the built-in
   * development credentials only.
   */
  shopifyDevelopment: ShopifyDevelopment | null;
  /** `shopifyDevelopment`'s sandbox, where tests and the CLI look at the shop's state. */
  shopifySandbox: ShopifyDevelopment['sandbox'] | null;
  /** Every queue's producer side (src/queues/queues.ts). */
  queues: Queues;
  /** The fail-fast Redis connection of the queue producers, the API rate limit and the carrier quota. */
  redis: Redis;
  /** Where web processes report their webhook intake and worker processes read it (intake-reports.ts). */
  intakeReports: IntakeReportBoard;
  /** This process's Prometheus instruments, on its own registry (src/operations/metrics.ts). */
  metrics: Metrics;
  /** The clock every service reads (the `now` override in tests). */
  now: () => Date;
  /** Closes what the services opened (the queue producers). */
  close(): Promise<void>;
}

export interface ServiceOverrides {
  verifier?: TrackingNumberVerifier;
  now?: () => Date;
  /** Where sandboxed carriers are reached; default: this server's own /sandbox. */
  sandboxBaseUrl?: string;
  /** Base of the push webhook URLs registered with the in-process sandbox; default this server over loopback. */
  pushCallbackBaseUrl?: string;
  /** Poll cadence for sandboxed carriers (the demo profile); default 5 s. */
  sandboxPollIntervalMs?: number;
  /**
   * 'carrier': sandboxed carriers are polled on the real carriers' schedule, not the demo profile
   * (tests that judge the schedule through the app, on a test clock). Default 'demo'.
   */
  sandboxSchedule?: 'demo' | 'carrier';
  /** Replaces the e-mail channel (fault-injection tests wrap the real one). */
  email?: EmailChannel;
  /** Replaces the BullMQ video queue (tests that run processing by hand, in their own order). */
  videoQueue?: VideoProcessingQueue;
}

/** `templates` come compiled (`compileMessageTemplates`, async): a broken template stops the start before this. */
export async function createServices(
  config: Config,
  logger: Logger,
  database: DatabaseHandle,
  templates: MessageTemplates,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const now = overrides.now ?? (() => new Date());
  const sandboxBaseUrl =
    overrides.sandboxBaseUrl ?? config.carrierSandboxUrl ?? `http://127.0.0.1:${config.port}/sandbox`;
  // Producers fail fast so a request never hangs on Redis: the reconcilers hand over again from
  // PostgreSQL whatever a failed add missed (pending videos, webhook receipts). The carrier quota
  // counts on the same connection, failing closed (src/carriers/quota.ts).
  if (!config.redisUrl)
    throw new Error('createServices needs config.redisUrl (npm start starts a private Redis when REDIS_URL is unset)');
  const producer = createRedisConnection(config.redisUrl, 'producer');
  const metrics = new Metrics();
  const carriers = await createCarrierAccess(config, {
    sandboxBaseUrl,
    pushCallbackBaseUrl: overrides.pushCallbackBaseUrl,
    sandboxPollIntervalMs: overrides.sandboxPollIntervalMs,
    sandboxSchedule: overrides.sandboxSchedule,
    logger,
    redis: producer,
    observeCall: (call) => metrics.carrierCall(call),
  });
  const { clients, quota } = carriers;

  const orderOutbox = new OrderOutbox({ db: database.db, logger, now });
  const orders = new OrderService({
    db: database.db,
    verifier:
      overrides.verifier ?? carrierVerifier(clients, { timeoutMs: config.carrierValidationTimeoutMs, logger, now }),
    outbox: orderOutbox,
    sendInProgress: recipientVideoInProgress,
    recipientVideoLeft,
    accountLocale: (accountId) => findAccountLocale(database.db, accountId),
    now,
  });
  const tracking = createTracking({
    db: database.db,
    orders,
    carriers,
    logger,
    now,
    // A Shopify gift in several boxes is delivered by its last one (`shopify` is made below; asked only
    // when a carrier delivers).
    deliversOrder: (orderId, trackingNumber) => shopify.sync.carrierDelivered(orderId, trackingNumber),
  });
  const { poller } = tracking;
  const notifications = createNotifications({
    config,
    db: database.db,
    orders,
    templates,
    logger,
    now,
    observer: metrics,
    email: overrides.email,
    // `queues`, `videos` and `thanks` are made below; the notifications ask only when they send, long after.
    onMessagesQueued: () => queues.dispatchSendsNow(),
    hasPoster: (orderId) => videos.hasPoster(orderId),
    thanksMessage: (orderId) => thanks.message(orderId),
    thanksSent: (trx, orderId, at) => thanks.markSent(trx, orderId, at),
  });
  const { dispatcher, emailEvents, notWatched, email } = notifications;
  const queues = new Queues(producer, { prefix: config.queuePrefix, logger });
  const videosModule = createVideos({
    config,
    db: database.db,
    orders,
    logger,
    now,
    processingQueue: queues.videoProcessing,
    queue: overrides.videoQueue,
    // `thanks` is made just below; processing asks only long after.
    onReplyProcessed: (video) => thanks.replyProcessed(video),
  });
  const { service: videos, storage: videoStorage, queue: videoQueue } = videosModule;
  const thanks: ThanksService = new ThanksService({
    db: database.db,
    orders,
    videos,
    sendStarted: thanksSendStarted,
    publicUrl: config.publicUrl,
  });
  const shopify = createShopifyServices({
    config: config.shopify,
    db: database.db,
    orders,
    logger,
    // TOKEN_ENCRYPTION_KEY, or on the embedded defaults the key generated into DATA_DIR.
    tokenCipher: tokenCipherFor(config),
    now,
    enqueue: queueEnqueuer(queues.shopifyWebhooks),
    enqueueReceipts: queueBatchEnqueuer(queues.shopifyWebhooks),
    observeWebhook: (topic, outcome) => metrics.webhook(topic, outcome),
    // Fulfillment events feed the tracking schedule without a carrier call (docs/tracking.md "Free signals").
    observeTracking: (orderId, trackingNumbers, observation) => poller.observe(orderId, trackingNumbers, observation),
  });
  // Development credentials are public and never a real app: Shopify is the local sandbox then.
  // With real credentials the library talks to Shopify itself, and the development module (the
  // sandbox, App Bridge's stand-in) is never loaded.
  const shopifyDevelopment = config.shopify.development
    ? (await import('./shopify/dev/index.ts')).startShopifyDevelopment(config.shopify, sandboxBaseUrl)
    : null;
  const billing = new ShopifyBilling({
    db: database.db,
    shopify,
    config: config.shopifyBilling,
    logger: logger.child({ component: 'billing' }),
    now,
    enqueue: (orderId, options) => enqueueUsageCharge(queues.billing, orderId, options),
  });

  // Every module that reacts to order changes, in one list: each owns the tables it writes.
  orderOutbox.subscribe(tracking.subscriber);
  orderOutbox.subscribe(notifications.subscriber);
  orderOutbox.subscribe(videos.orderSubscriber());
  orderOutbox.subscribe(thanks.orderSubscriber());
  orderOutbox.subscribe(billing.orderSubscriber());

  registerScrapeGauges(metrics, { db: database.db, queues: queues.all(), quota, now });

  return {
    config,
    logger,
    database,
    orders,
    orderOutbox,
    poller,
    push: { subscriptions: tracking.pushSubscriptions, events: tracking.pushEvents, ...carriers.push },
    carriers: clients,
    sandboxedCarriers: carriers.sandboxed,
    carrierSandbox: carriers.sandbox,
    dispatcher,
    emailEvents,
    notWatched,
    videos,
    thanks,
    videoStorage,
    videoQueue,
    shopify,
    billing,
    shopifyDevelopment,
    shopifySandbox: shopifyDevelopment?.sandbox ?? null,
    queues,
    redis: producer,
    intakeReports: new IntakeReportBoard(producer, config.queuePrefix),
    metrics,
    now,
    async close() {
      // Receipts the intake stored in its last moments go to their queue before it closes.
      await shopify.receiptHandOff?.drain();
      await queues.close();
      producer.disconnect();
      // The workers have stopped (the entry points close them first): no message is handed over now.
      email.close?.();
    },
  };
}

/** The public HTTP application: health check, the authenticated /v1 API, and the carrier sandbox. */
export function createHttpApp(services: Services): Koa {
  const app = new Koa({ proxy: false });
  // What reaches Koa's own error event is not a request's error (errorHandler answers those): it is a
  // connection that broke mid-request, e.g. a phone cutting a resumable upload. Ours, not stderr's.
  app.on('error', (error: unknown, ctx?: Koa.Context) =>
    (ctx?.log ?? services.logger).info(
      {
        code: (error as { code?: unknown } | null)?.code,
        message: error instanceof Error ? error.message : String(error),
      },
      'connection ended before its answer',
    ),
  );
  app.use(requestContext(services.logger));
  app.use(refuseUnknownMethods);
  app.use(bodyReadLimits(services.config.bodyReads));
  app.use(noStoreUnder('/v1'));
  app.use(httpMetrics(services.metrics, ['/sandbox', QUEUE_DASHBOARD_PATH]));

  // The Shopify sandbox (development credentials only) answers in Shopify's formats, before the
  // carrier sandbox, which takes every other /sandbox/ path; App Bridge's stand-in is a script of ours.
  const shopifyDevelopment = services.shopifyDevelopment;
  if (shopifyDevelopment) {
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/sandbox/shopify/')) return next();
      ctx.respond = false;
      shopifyDevelopment.sandbox.handle(ctx.req, ctx.res, ctx.url.slice('/sandbox/shopify'.length));
    });
    app.use(shopifyDevelopment.routes.routes());
  }

  // The sandbox is a separate app that speaks the carriers' own formats (and error shapes), so it
  // is handed the raw request before our API's error handling and auth.
  const sandbox = services.carrierSandbox?.app.callback();
  if (sandbox) {
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/sandbox/')) return next();
      ctx.respond = false;
      await sandbox(ctx.req, ctx.res);
    });
  }

  app.use(errorHandler);
  // Shopify's webhook endpoint, the busiest under a burst, ahead of the routers below (routes.ts).
  app.use(shopifyWebhookIntake(services.shopify));
  app.use(favicon);

  // Operators: /healthz, /readyz, /metrics and the queue dashboard, outside the /v1 authentication.
  // None of the public routers below serves /v1 but the OpenAPI document's: API requests skip them.
  app.use(outside('/v1', operationsRoutes(operationsDeps(services)).routes()));
  app.use(outside('/v1', queueDashboard(services.queues.all(), services.config.operator)));
  // Carrier push webhooks (public; their own credentials): stored, answered, applied right after.
  const push = services.push;
  app.use(
    outside(
      '/v1',
      pushRoutes({
        ups: push.ups,
        usps: push.usps,
        fedex: push.fedex,
        events: push.events,
        now: services.now,
        logger: services.logger,
      }).routes(),
    ),
  );
  // E-mail providers' event webhooks (public; each provider's own authentication): bounces fail sends.
  app.use(
    outside(
      '/v1',
      emailEventRoutes({
        config: services.config.emailEvents,
        events: services.emailEvents,
        logger: services.logger,
      }).routes(),
    ),
  );

  // Shopify's webhooks, OAuth and embedded admin: before the /v1 auth and with no body parser in
  // front, because the webhook HMAC covers the exact raw bytes.
  app.use(shopifyRoutes(services.shopify).routes());
  // The embedded admin's JSON API (session tokens): every change through the same services as /v1.
  const adminApi = adminApiRoutes({
    shopify: services.shopify,
    orders: services.orders,
    resend: (accountId, orderId, source) => services.dispatcher.resend(accountId, orderId, source),
    publicUrl: services.config.publicUrl,
    now: services.now,
    videos: services.videos,
    planActive: async (domain) => (await services.billing.currentSubscription(domain))?.status === 'active',
  });
  app.use(outside('/v1', adminApi.routes()));
  // `/` is the Shopify app's application_url: the embedded admin, the OAuth entry, or a word on what Doorstep is.
  app.use(outside('/v1', appHomeRoutes(services.shopify).routes()));
  // Billing: the embedded admin's /shopify/api/billing (session token) and the approval return URL.
  app.use(outside('/v1', shopifyBillingRoutes(services.billing, services.shopify).routes()));
  // What the checkout / order-status UI extension asks (session token, any origin): public too.
  app.use(outside('/v1', shopifyExtensionRoutes(services.shopify, services.config.publicUrl).routes()));

  // The OpenAPI document and its reference page: public, so mounted before the /v1 auth below.
  app.use(apiReferenceRoutes(services.config.publicUrl).routes());
  // Stores' uploaded logos: public, pages and e-mails load them.
  app.use(logoRoutes(services.database.db).routes());
  // The App Store listing's privacy policy and support page: public, like the front page.
  app.use(
    sitePageRoutes({
      supportEmail: services.config.supportEmail,
      originalRetentionDays: services.config.videos.originalRetentionDays,
    }).routes(),
  );

  // Everything under /v1 needs credentials, including unknown paths (no probing without a key).
  const authenticate = basicAuth(services.database.db, {
    failures: new FailedAuthLimit(services.redis, services.config.queuePrefix, services.config.failedAuthLimits),
  });
  const limit = rateLimit({
    redis: services.redis,
    prefix: services.config.queuePrefix,
    perMinute: services.config.rateLimitPerMinute,
    now: services.now,
  });
  app.use(async (ctx, next) => (isUnder(ctx.path, '/v1') ? authenticate(ctx, () => limit(ctx, next)) : next()));

  app.use(shopifyAccountRoutes(services.shopify).routes());

  const videoDeps = {
    orders: services.orders,
    videos: services.videos,
    storage: services.videoStorage,
    maxBytes: services.config.videos.maxBytes,
    maxSeconds: services.config.videos.maxSeconds,
    deliveryEstimate: (orderId: string) => carrierEstimate(services.database.db, orderId),
    storeBranding: (accountId: string) => findStoreBranding(services.database.db, accountId),
    publicUrl: services.config.publicUrl,
    uploadLimit: new UploadLimit(services.redis, services.config.queuePrefix, services.config.videos.uploadLimits),
    resumableUploads: new ResumableUploads({
      ...services.config.videos.resumable,
      maxBytes: services.config.videos.maxBytes,
      logger: services.logger,
      findVideo: (videoId: string) => services.videos.find(videoId),
    }),
    thanksSection: async (order: OrderRow) => {
      const state = await services.thanks.state(order);
      const limits = {
        maxBytes: services.config.videos.maxBytes,
        maxSeconds: services.config.videos.thanks.maxSeconds,
        sendDelaySeconds: services.config.videos.thanks.sendDelaySeconds,
      };
      return (locale: Locale) => thanksSection(order, state, limits, locale);
    },
  };
  const videoApi = videoApiRoutes(videoDeps);
  app.use(videoApi.routes());
  app.use(allowedMethodsOf(videoApi));
  const orders = orderRoutes(services.orders, services.config.publicUrl);
  app.use(orders.routes());
  const resend = resendRoutes(services.dispatcher, services.config.publicUrl);
  app.use(resend.routes());
  app.use(allowedMethodsOf(resend));
  const statements = statementRoutes(services.database.db, services.now);
  app.use(statements.routes());
  app.use(allowedMethodsOf(statements));
  const accountSettings = accountSettingsRoutes(services.database.db, services.now, services.config.publicUrl);
  app.use(accountSettings.routes());
  app.use(allowedMethodsOf(accountSettings));
  app.use(allowedMethodsOf(orders));

  // The recipient's thank-you reply and the sender's page of it (src/thanks/).
  const thanksPages = thanksRoutes({
    ...videoDeps,
    thanks: services.thanks,
    storeUrl: (accountId) => shopStorefrontUrl(services.database.db, accountId),
  });
  app.use(thanksPages.routes());
  app.use(allowedMethodsOf(thanksPages));

  // The record and watch pages: public, the uuid in the path is the capability.
  const pages = videoPageRoutes(videoDeps);
  app.use(pages.routes());
  app.use(allowedMethodsOf(pages));
  return app;
}

/** What the operators' endpoints read, for the web app and the worker's metrics server alike. */
export function operationsDeps(services: Services) {
  return {
    metrics: services.metrics,
    readiness: { db: services.database.db, redis: services.redis },
    operator: services.config.operator,
  };
}
