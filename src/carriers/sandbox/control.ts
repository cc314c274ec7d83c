import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { CARRIER_CODES, type CarrierCode } from '../carrier-code.ts';
import { BodyError, readJson } from './body.ts';
import { SANDBOX_STATUSES, type SandboxPackage } from './packages.ts';
import type { SandboxState } from './state.ts';

/**
 * The sandbox's own API, for tests and demos: script package events, inject faults, read counters.
 * Bad input is 422 `{"error":{"type":"validation_error","message":…}}`, the service's own error shape.
 */

const carrierSchema = z.enum(CARRIER_CODES, { error: `carrier must be one of ${CARRIER_CODES.join(', ')}` });
const trackingNumberSchema = z
  .string()
  .trim()
  .min(1, 'tracking number is empty')
  .max(64, 'tracking number is longer than 64 characters')
  .regex(/^[\x21-\x7e ]+$/, 'tracking number must be printable ASCII');

const timestamp = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 timestamp with a time zone, e.g. 2025-06-01T14:30:00Z',
});

const eventSchema = z.strictObject({
  status: z.enum(SANDBOX_STATUSES, { error: `status must be one of ${SANDBOX_STATUSES.join(', ')}` }),
  at: timestamp.optional(),
  estimated_delivery_at: timestamp.nullable().optional(),
  description: z.string().trim().min(1).max(200).nullable().optional(),
});

const count = z.int().min(0).max(10_000);
const faultsSchema = z.strictObject({
  rate_limit: count.optional(),
  server_error: count.optional(),
  unauthorized: count.optional(),
  delay_ms: z.int().min(0).max(120_000).optional(),
  retry_after_seconds: z.int().min(0).max(86_400).optional(),
});

const webhookSchema = z.strictObject({
  url: z.url(),
  token_url: z.url(),
  client_id: z.string().min(1).max(200),
  client_secret: z.string().min(1).max(200),
});

export function controlRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox' });

  router.post('/carriers/:carrier/packages/:trackingNumber/events', async (ctx) => {
    const carrier = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    const trackingNumber = parse(trackingNumberSchema, ctx.params['trackingNumber'], 'tracking number');
    const body = parse(eventSchema, await jsonBody(ctx), 'body');
    const pkg = state.packages.append(carrier, trackingNumber, {
      status: body.status,
      at: body.at ? new Date(body.at) : state.now(),
      estimatedDeliveryAt: body.estimated_delivery_at ? new Date(body.estimated_delivery_at) : null,
      description: body.description ?? null,
    });
    // The carrier tells its subscribers (push), as the real one would on a new scan.
    const event = pkg.events.at(-1)!;
    state.push.notify(
      carrier,
      pkg.trackingNumber,
      event,
      state.packages.snapshot(carrier, trackingNumber)?.estimatedDeliveryAt ?? null,
    );
    ctx.status = 201;
    ctx.body = packageJson(pkg);
  });

  // Stands in for a carrier's web page where webhook credentials are registered (UPS "Manage
  // Webhook Credentials"): there is no API for it in the carriers' specs.
  router.put('/carriers/:carrier/webhook', async (ctx) => {
    const carrier = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    const body = parse(webhookSchema, await jsonBody(ctx), 'body');
    state.push.register(carrier, {
      url: body.url,
      tokenUrl: body.token_url,
      clientId: body.client_id,
      clientSecret: body.client_secret,
    });
    ctx.status = 204;
  });

  router.get('/carriers/:carrier/packages/:trackingNumber', (ctx) => {
    const carrier = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    const trackingNumber = parse(trackingNumberSchema, ctx.params['trackingNumber'], 'tracking number');
    const pkg = state.packages.get(carrier, trackingNumber);
    if (!pkg) {
      ctx.status = 404;
      ctx.body = { error: { type: 'not_found', message: `No ${carrier} package ${trackingNumber} in the sandbox.` } };
      return;
    }
    // Whether a push subscription covers it: the bench waits for it before scripting a journey.
    ctx.body = { ...packageJson(pkg), push_subscribed: state.push.isSubscribed(carrier, pkg.trackingNumber) };
  });

  router.post('/carriers/:carrier/faults', async (ctx) => {
    const carrier = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    const body = parse(faultsSchema, await jsonBody(ctx), 'body');
    state.carriers[carrier].faults.update({
      ...(body.rate_limit === undefined ? {} : { rateLimit: body.rate_limit }),
      ...(body.server_error === undefined ? {} : { serverError: body.server_error }),
      ...(body.unauthorized === undefined ? {} : { unauthorized: body.unauthorized }),
      ...(body.delay_ms === undefined ? {} : { delayMs: body.delay_ms }),
      ...(body.retry_after_seconds === undefined ? {} : { retryAfterSeconds: body.retry_after_seconds }),
    });
    ctx.status = 204;
  });

  router.delete('/carriers/:carrier/faults', (ctx) => {
    const carrier = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    state.carriers[carrier].faults.clear();
    ctx.status = 204;
  });

  router.get('/carriers/:carrier/stats', (ctx) => {
    const carrier: CarrierCode = parse(carrierSchema, ctx.params['carrier'], 'carrier');
    const { stats } = state.carriers[carrier];
    ctx.body = {
      track_calls: stats.trackCalls,
      oauth_calls: stats.oauthCalls,
      subscribe_calls: stats.subscribeCalls,
      push_posts: stats.pushPosts,
      push_failures: stats.pushFailures,
    };
  });

  router.post('/reset', (ctx) => {
    state.reset();
    ctx.status = 204;
  });

  return router;
}

/** Thrown by the control routes, answered 422 by `controlErrors`. */
export class ControlInputError extends Error {
  override name = 'ControlInputError';
}

/** Answers ControlInputError with 422 in the service's error shape. */
export async function controlErrors(ctx: Context, next: () => Promise<unknown>): Promise<void> {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof ControlInputError)) throw error;
    ctx.status = 422;
    ctx.body = { error: { type: 'validation_error', message: error.message } };
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new ControlInputError(`Invalid ${what}: ${where}${issue?.message ?? 'invalid value'}`);
}

async function jsonBody(ctx: Context): Promise<unknown> {
  try {
    return await readJson(ctx);
  } catch (error) {
    if (error instanceof BodyError) throw new ControlInputError(`Invalid body: ${error.message}`);
    throw error;
  }
}

function packageJson(pkg: SandboxPackage) {
  return {
    carrier: pkg.carrier,
    tracking_number: pkg.trackingNumber,
    events: pkg.events.map((event) => ({
      status: event.status,
      at: event.at.toISOString(),
      estimated_delivery_at: event.estimatedDeliveryAt?.toISOString() ?? null,
      description: event.description,
    })),
  };
}
