import type http from 'node:http';
import type Koa from 'koa';

/**
 * Koa's request handler as Node's `http` server expects it (a listener that returns nothing). Koa's
 * handler returns a promise that never rejects — it answers every error itself (`ctx.onerror`) — so
 * nothing is lost by not awaiting it.
 */
export function nodeHandler(app: Koa): http.RequestListener {
  const handle = app.callback();
  return (request, response) => {
    void handle(request, response);
  };
}
