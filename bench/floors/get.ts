/**
 * GET floor: one indexed SELECT of an order by id, returned as JSON. With `--auth`, first the Basic
 * auth lookup the service must do at least: the account by app id (unique index), its stored key
 * hash compared with SHA-256 of the given key in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Koa from 'koa';
import { floorPool, serveFloor } from './serve.ts';

const withAuth = process.argv.includes('--auth');
const pool = floorPool();
const app = new Koa();

app.use(async (ctx) => {
  const match = /^\/v1\/orders\/([^/]+)$/.exec(ctx.path);
  if (ctx.method !== 'GET' || !match) return void (ctx.status = 404);
  let accountId: string | null = null;
  if (withAuth) {
    const [user, key] = Buffer.from((ctx.get('Authorization') || '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    const { rows } = await pool.query<{ id: string; api_key_hash: string }>(
      'select id, api_key_hash from accounts where app_id = $1',
      [user ?? ''],
    );
    const given = createHash('sha256')
      .update(key ?? '')
      .digest();
    const stored = Buffer.from(rows[0]?.api_key_hash ?? '', 'hex');
    if (!rows[0] || stored.length !== given.length || !timingSafeEqual(stored, given)) return void (ctx.status = 401);
    accountId = rows[0].id;
  }
  const { rows } = await pool.query(
    accountId === null
      ? 'select * from orders where id = $1 and deleted_at is null'
      : 'select * from orders where id = $1 and account_id = $2 and deleted_at is null',
    accountId === null ? [match[1]] : [match[1], accountId],
  );
  if (!rows[0]) return void (ctx.status = 404);
  ctx.body = rows[0];
});
serveFloor(app, withAuth ? 'get-auth' : 'get');
