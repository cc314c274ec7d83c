import Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { currentAccount } from '../http/basic-auth.ts';
import { readJsonObject } from '../http/json-body.ts';
import { ValidationError } from '../errors.ts';
import { parseBody, parseListQuery } from '../validation.ts';
import {
  CREATE_REFUSED_FIELDS,
  idempotencyKeySchema,
  orderCreateSchema,
  orderListQuerySchema,
  orderUpdateSchema,
} from './request-schemas.ts';
import type { orderPageJson, timelineJson } from './response-schemas.ts';
import { serializeOrder, serializeUpdateResponse } from './serializer.ts';
import type { OrderService } from './service.ts';

/** docs/design.md §1: the order resource under /v1. */
export function orderRoutes(orders: OrderService, publicUrl: string): Router {
  const router = new Router({ prefix: '/v1/orders' });

  router.post('/', async (ctx) => {
    const body = parseBody(orderCreateSchema, await readJsonObject(ctx), 'order', {
      refusedKeys: CREATE_REFUSED_FIELDS,
    });
    const idempotencyKey = readIdempotencyKey(ctx);
    const result = await orders.create(currentAccount(ctx).id, body, { idempotencyKey });
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 201;
    ctx.set('Location', `/v1/orders/${result.order.id}`);
    ctx.body = serializeUpdateResponse(result.order, publicUrl, result.warning);
  });

  router.get('/', async (ctx) => {
    const query = parseListQuery(orderListQuerySchema, ctx.query);
    const page = await orders.list(currentAccount(ctx).id, query);
    ctx.body = {
      data: page.orders.map((o) => serializeOrder(o, publicUrl)),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    } satisfies z.output<typeof orderPageJson>;
  });

  router.get('/:orderId', async (ctx) => {
    ctx.body = serializeOrder(await orders.get(currentAccount(ctx).id, ctx.params.orderId!), publicUrl);
  });

  router.put('/:orderId', async (ctx) => {
    const update = parseBody(orderUpdateSchema, await readJsonObject(ctx), 'update');
    const result = await orders.update(currentAccount(ctx).id, ctx.params.orderId!, update, 'api');
    ctx.body = serializeUpdateResponse(result.order, publicUrl, result.warning);
  });

  router.delete('/:orderId', async (ctx) => {
    await orders.delete(currentAccount(ctx).id, ctx.params.orderId!);
    ctx.status = 204;
  });

  router.get('/:orderId/events', async (ctx) => {
    ctx.body = { data: await orders.events(currentAccount(ctx).id, ctx.params.orderId!) } satisfies z.output<
      typeof timelineJson
    >;
  });

  return router;
}

/**
 * The key, or undefined when the header is absent. A header sent empty is refused, not read as absent:
 * the client meant to make the create safe to retry, and a retry would otherwise create a second order.
 * Node joins repeated headers with ", ", which the key's characters (no spaces) then refuse.
 */
function readIdempotencyKey(ctx: Context): string | undefined {
  if (ctx.req.headers['idempotency-key'] === undefined) return undefined;
  const header = ctx.get('Idempotency-Key');
  if (!idempotencyKeySchema.safeParse(header).success) {
    throw new ValidationError('The Idempotency-Key header is not valid.', {
      'Idempotency-Key': 'must be one header of 1 to 255 printable ASCII characters, without spaces',
    });
  }
  return header;
}
