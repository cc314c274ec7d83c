import Router from '@koa/router';
import { currentAccount } from '../http/basic-auth.ts';
import { serializeOrder } from '../orders/serializer.ts';
import type { SendDispatcher } from './dispatcher.ts';

/** `POST /v1/orders/{id}/resend` (mounted behind Basic auth): 200 + the order; 409 with the reason when there is nothing to resend. */
export function resendRoutes(dispatcher: SendDispatcher, publicUrl: string): Router {
  const router = new Router({ prefix: '/v1/orders' });
  router.post('/:orderId/resend', async (ctx) => {
    ctx.body = serializeOrder(await dispatcher.resend(currentAccount(ctx).id, ctx.params.orderId!), publicUrl);
  });
  return router;
}
