import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { HttpError } from './errors.ts';

/**
 * A router's 405 with the `Allow` header RFC 9110 §15.5.6 requires and our JSON error body: the path
 * exists, the method does not. (@koa/router's `allowedMethods({ throw: true })` throws without `Allow`;
 * without `throw` it sets `Allow` but leaves an empty body.) OPTIONS is answered by the router with
 * the same list.
 */
export function allowedMethodsOf(router: Router): Middleware {
  const allowedMethods = router.allowedMethods();
  return async (ctx: Context, next: Next) => {
    await allowedMethods(ctx as Parameters<typeof allowedMethods>[0], next);
    if (ctx.status !== 405 || ctx.body != null) return;
    const allow = ctx.response.get('Allow');
    throw new HttpError(405, 'method_not_allowed', `This URL answers ${allow}, not ${ctx.method.slice(0, 32)}.`, {
      Allow: allow,
    });
  };
}
