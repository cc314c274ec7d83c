import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { formatVerifier } from './carriers/format-verifier.ts';
import { basicAuth } from './http/basic-auth.ts';
import { errorHandler } from './http/error-handler.ts';
import { requestContext } from './http/request-context.ts';
import type { Logger } from './logger.ts';
import { orderRoutes } from './orders/routes.ts';
import { OrderService, type TrackingNumberVerifier } from './orders/service.ts';

/** Everything the processes share, built once by the composition root. */
export interface Services {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  orders: OrderService;
}

export interface ServiceOverrides {
  verifier?: TrackingNumberVerifier;
  now?: () => Date;
}

export function createServices(config: Config, logger: Logger, database: DatabaseHandle, overrides: ServiceOverrides = {}): Services {
  const orders = new OrderService({
    db: database.db,
    verifier: overrides.verifier ?? formatVerifier,
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  return { config, logger, database, orders };
}

/** The public HTTP application: health check, then the authenticated /v1 API. */
export function createHttpApp(services: Services): Koa {
  const app = new Koa({ proxy: false });
  app.use(requestContext(services.logger));
  app.use(errorHandler);

  const health = new Router();
  health.get('/healthz', async (ctx) => {
    await services.database.db.selectFrom('accounts').select('id').limit(1).execute();
    ctx.body = { status: 'ok' };
  });
  app.use(health.routes());

  // Everything under /v1 needs credentials, including unknown paths (no probing without a key).
  const authenticate = basicAuth(services.database.db);
  app.use(async (ctx, next) => (ctx.path === '/v1' || ctx.path.startsWith('/v1/') ? authenticate(ctx, next) : next()));

  const orders = orderRoutes(services.orders, services.config.publicUrl);
  app.use(orders.routes());
  app.use(orders.allowedMethods({ throw: true }));
  return app;
}
