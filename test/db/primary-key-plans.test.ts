import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { moveSendQuery, rescheduleSendQuery } from '../../src/notifications/sends.ts';
import { lockOrderQuery, orderQuery, orderWithTimelineQuery } from '../../src/orders/service.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';
import { describePlan, indexesIn, planOf } from '../support/query-plans.ts';

/**
 * The order's reads by id and account must go through `orders_pkey`, whatever the statistics say of
 * the account. The bench's million-row database showed why: beside one big merchant, the bench's own
 * small account looked empty to the planner, which then served `id = … and account_id = …` from
 * `orders_account_sent` (account_id, sent_at) — every order of the account read and filtered by id,
 * and each of their dead versions not yet vacuumed. A GET touched 8 buffers instead of 4 and ran
 * ~11% slower than on an empty database; a merchant the statistics undercount would pay it on every
 * request, growing with their orders. A message changed by id with its status checked has the same
 * shape: with nothing queued or in flight in the statistics, the partial indexes of queued and
 * in-flight messages look free. Seeded here the same way: one account with every order (and sent
 * message) the statistics saw, and one that joined after them, its messages still queued.
 */
const BIG_ACCOUNT_ORDERS = 30_000;
const SMALL_ACCOUNT_ORDERS = 100;
const SMALL_ORDER = 'ord_small_50';

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  await sql`insert into accounts (id, name, app_id, api_key_hash)
    values ('acc_big', 'Big', 'app_big', md5('big')), ('acc_small', 'Small', 'app_small', md5('small'))`.execute(db);
  const insertOrders = (account: string, prefix: string, count: number) =>
    sql`insert into orders (id, account_id, uuid, status, name, email, recipient_name, send_method, send_trigger,
        created_at, updated_at)
      select ${prefix} || g, ${account}, md5(${prefix} || g)::uuid, 'created', 'Sender', 'sender@example.com',
        'Recipient', 'email', 'package', now(), now()
      from generate_series(1, ${count}) g`.execute(db);
  const insertSends = (account: string, prefix: string, count: number, status: 'sent' | 'pending') =>
    sql`insert into sends (id, order_id, account_id, kind, channel, status, due_at, sent_at, order_recorded,
        created_at, updated_at)
      select 'snd_' || ${prefix} || g, ${prefix} || g, ${account}, 'recipient_video', 'email', ${status}, now(),
        case when ${status} = 'sent' then now() end, ${status} = 'sent', now(), now()
      from generate_series(1, ${count}) g`.execute(db);
  await insertOrders('acc_big', 'ord_big_', BIG_ACCOUNT_ORDERS);
  await insertSends('acc_big', 'ord_big_', BIG_ACCOUNT_ORDERS, 'sent');
  await sql`analyze`.execute(db);
  // After the statistics: a merchant who joined since (on a large table, autovacuum's next ANALYZE
  // waits for 10% of it to change), with their messages still queued.
  await insertOrders('acc_small', 'ord_small_', SMALL_ACCOUNT_ORDERS);
  await insertSends('acc_small', 'ord_small_', SMALL_ACCOUNT_ORDERS, 'pending');
}, 120_000);

afterAll(async () => {
  await database?.close();
});

describe('an order read by id and account, in an account the statistics think empty', () => {
  it.each([
    ['GET order', () => orderQuery(db, 'acc_small', SMALL_ORDER)],
    ['GET order with its timeline', () => orderWithTimelineQuery(db, 'acc_small', SMALL_ORDER)],
    ['the order row lock', () => lockOrderQuery(db, SMALL_ORDER, 'acc_small')],
  ])('%s uses the primary key', async (_name, query) => {
    const plan = await planOf(db, query());
    expect(
      indexesIn(plan).filter((index) => index.startsWith('orders')),
      describePlan(plan),
    ).toEqual(['orders_pkey']);
  });
});

describe('a message changed by id while the statistics say none is queued or in flight', () => {
  const send = { id: `snd_${SMALL_ORDER}`, claim_token: 'token' };
  it.each([
    ['reschedule a queued message', () => rescheduleSendQuery(db, send.id, new Date(), new Date())],
    ['claimed → sending', () => moveSendQuery(db, send, 'claimed', { status: 'sending' }, new Date())],
    ['sending → pending', () => moveSendQuery(db, send, 'sending', { status: 'pending' }, new Date())],
  ])('%s uses the primary key', async (_name, query) => {
    const plan = await planOf(db, query());
    expect(indexesIn(plan), describePlan(plan)).toEqual(['sends_pkey']);
  });
});
