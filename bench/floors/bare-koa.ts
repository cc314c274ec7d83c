/** The ceiling of the HTTP stack itself: Koa answering a constant JSON body, no database. */
import Koa from 'koa';
import { serveFloor } from './serve.ts';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { ok: true };
});
serveFloor(app, 'bare-koa');
