/**
 * PUT floor: the least an order change can cost — one transaction that locks the order, updates
 * it and appends one timeline row. Bound by commit flushes with fsync on.
 */
import Koa from 'koa';
import { floorPool, rawBody, serveFloor } from './serve.ts';

const pool = floorPool();
const app = new Koa();

app.use(async (ctx) => {
  const match = /^\/v1\/orders\/([^/]+)$/.exec(ctx.path);
  if (ctx.method !== 'PUT' || !match) return void (ctx.status = 404);
  const body = JSON.parse((await rawBody(ctx.req)).toString()) as { price?: number };
  if (typeof body.price !== 'number') return void (ctx.status = 400);
  const client = await pool.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query<{ id: string; account_id: string; price: number | null }>(
      'select id, account_id, price from orders where id = $1 for update',
      [match[1]],
    );
    const order = rows[0];
    if (!order) {
      await client.query('rollback');
      return void (ctx.status = 404);
    }
    await client.query('update orders set price = $2, updated_at = now() where id = $1', [order.id, body.price]);
    await client.query(
      `insert into order_events (order_id, account_id, type, source, data, created_at) values ($1, $2, 'order.updated', 'api', $3, now())`,
      [order.id, order.account_id, JSON.stringify({ changes: { price: [order.price, body.price] } })],
    );
    await client.query('commit');
    ctx.body = { id: order.id, price: body.price };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
});
serveFloor(app, 'put');
