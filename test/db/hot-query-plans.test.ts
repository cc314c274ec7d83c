import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountByAppIdQuery } from '../../src/accounts/accounts.ts';
import { accountSettingsQuery } from '../../src/accounts/settings.ts';
import { dueNotWatchedChecksQuery } from '../../src/notifications/not-watched.ts';
import type { Db } from '../../src/db/database.ts';
import {
  claimDueSendsQuery,
  emailSendByProviderIdQuery,
  moveSendQuery,
  recipientVideoSendsQuery,
  stopSendsQuery,
  unrecordedSentVideosQuery,
} from '../../src/notifications/sends.ts';
import { dueOutboxQuery, earlierOutboxRowQuery, outboxRowToHandleQuery } from '../../src/orders/outbox.ts';
import {
  idempotencyKeyQuery,
  lockOrderQuery,
  orderPageQuery,
  orderQuery,
  orderWithTimelineQuery,
  updateWithTimelineQuery,
} from '../../src/orders/service.ts';
import { timelineQuery } from '../../src/orders/timeline.ts';
import { fulfillmentsOfOrderQuery, linksOfOrderQuery, orderLinkQuery } from '../../src/shopify/orders/order-sync.ts';
import { plainTextTokenShopsQuery } from '../../src/shopify/auth/stored-tokens.ts';
import { takeReceiptQuery, unprocessedWebhooksQuery } from '../../src/shopify/intake/webhooks.ts';
import { linksOfShopifyOrderQuery } from '../../src/shopify/intake/webhook-shop-check.ts';
import {
  claimDueTrackingsQuery,
  leasedTrackingsQuery,
  openClaimsQuery,
  releaseClaimQuery,
} from '../../src/tracking/trackings.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';
import { describePlan, indexesIn, planNodes, planOf as planOfQuery, type PlanNode } from '../support/query-plans.ts';

/**
 * Issue 11: every query on a hot path is served by an index. The database is seeded until a
 * sequential scan of a large table costs more than an index scan (ANALYZEd, so the planner knows),
 * then each hot query is EXPLAINed — the very text the code runs, from the builders the owning
 * modules export — and a Seq Scan of a large table fails the test.
 */

/** Rows per order-sized table: enough that the planner prefers an index on both PGlite and PostgreSQL. */
const ORDERS = 20_000;
const ACCOUNTS = 500;
const LARGE_TABLES = [
  'accounts',
  'orders',
  'order_events',
  'order_outbox',
  'idempotency_keys',
  'sends',
  'trackings',
  'webhook_receipts',
  'shopify_order_links',
  'shopify_fulfillments',
  'sender_nudges',
  'account_settings',
  'shops',
];

const NOW = new Date('2026-11-23T12:00:00Z');
/** An order in the middle of the seeded range, and its account (order n belongs to account n % ACCOUNTS). */
const ORDER = 'ord_12345';
const ACCOUNT = `acc_${12345 % ACCOUNTS}`;
const SUBSCRIBERS = ['tracking', 'notifications', 'videos', 'billing'];

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  await seed(db);
}, 180_000);

afterAll(async () => {
  await database?.close();
});

const planOf = (query: { compile(): CompiledQuery } | CompiledQuery) => planOfQuery(db, query);

/** The large tables the plan reads whole, e.g. ["sends"]; empty when every large table is read through an index. */
function seqScannedLargeTables(plan: PlanNode): string[] {
  return planNodes(plan)
    .filter((node) => node['Node Type'] === 'Seq Scan' && LARGE_TABLES.includes(node['Relation Name'] ?? ''))
    .map((node) => node['Relation Name']!);
}

const compileWith = (query: { compile(executor: Db): CompiledQuery }) => ({ compile: () => query.compile(db) });

/** Each hot path's queries, built by the code's own builders with realistic values. */
const hotQueries: Record<string, () => { compile(): CompiledQuery }> = {
  'Basic auth: the account by app id': () => accountByAppIdQuery(db, 'app_77'),
  'GET order': () => orderQuery(db, ACCOUNT, ORDER),
  'GET order with its timeline (events route, admin detail)': () => orderWithTimelineQuery(db, ACCOUNT, ORDER),
  'GET orders: first page': () => orderPageQuery(db, ACCOUNT, { limit: 20 }),
  'GET orders: a later page, filtered by status': () =>
    orderPageQuery(db, ACCOUNT, { limit: 20, cursor: Buffer.from('s:15000').toString('base64url'), status: 'created' }),
  'POST order: the idempotency key': () => idempotencyKeyQuery(db, ACCOUNT, 'key-12345'),
  'PUT / delivered / video processed: the order row lock': () => lockOrderQuery(db, ORDER, ACCOUNT),
  'PUT: the update with its timeline rows': () =>
    updateWithTimelineQuery(db, ORDER, { price: 1500, updated_at: NOW }, [
      {
        order_id: ORDER,
        account_id: ACCOUNT,
        type: 'order.updated',
        source: 'api',
        data: JSON.stringify({ fields: ['price'] }),
        created_at: NOW,
      },
    ]),
  'order events: the timeline': () => timelineQuery(db, ORDER),
  'send reconciler: sent videos their order did not record': () => unrecordedSentVideosQuery(db, NOW, 100),
  "every order change: the order's recipient video sends": () =>
    recipientVideoSendsQuery(db, ORDER).select(['id', 'channel', 'status', 'attempts']),
  'cancel: sends in flight': () => recipientVideoSendsQuery(db, ORDER).select('id').where('status', '=', 'sending'),
  'cancel: stop the sends': () => stopSendsQuery(db, ORDER, 'cancelled', NOW),
  "e-mail provider event: the send by the provider's message id": () => emailSendByProviderIdQuery(db, 'queue-77'),
  'send dispatcher: claim the due sends': () => compileWith(claimDueSendsQuery(25, NOW, 'token')),
  "send dispatcher, intake pressed: claim the recipients' videos": () =>
    compileWith(claimDueSendsQuery(25, NOW, 'token', { only: 'recipient_videos' })),
  'send dispatcher, intake pressed: claim what was held long enough': () =>
    compileWith(claimDueSendsQuery(25, NOW, 'token', { dueBy: new Date(NOW.getTime() - 300_000) })),
  'send tick: the due not-watched checks': () => dueNotWatchedChecksQuery(db, NOW, 50),
  "every message and page: the account's settings (logo, not-watched note)": () => accountSettingsQuery(db, ACCOUNT),
  'outbox relay: the due rows': () => dueOutboxQuery(db, SUBSCRIBERS, NOW, 200),
  'outbox: take one row': () => outboxRowToHandleQuery(db, 4321, NOW),
  'outbox: an earlier row of the same order': () =>
    earlierOutboxRowQuery(db, { subscriber: 'tracking', order_id: ORDER, seq: 4321 }),
  'tracking: claim the due packages': () =>
    compileWith(claimDueTrackingsQuery('ups', 100, NOW, new Date(NOW.getTime() + 60_000), 'token')),
  "tracking: a claim's packages": () => leasedTrackingsQuery(db, 'lease-77'),
  'tracking reconciler: open claims': () => openClaimsQuery(db, NOW, new Date(NOW.getTime() + 30_000)),
  'tracking: release a lost claim': () => releaseClaimQuery(db, 'lease-77'),
  'webhook processing: take the receipt': () => takeReceiptQuery(db, 'whk_12345'),
  "webhook processing: the Shopify order's links in every shop (trust, and orders/create's lines)": () =>
    linksOfShopifyOrderQuery(db, '12345'),
  'webhook reconciler: unprocessed receipts': () => unprocessedWebhooksQuery(db, NOW, 500),
  'Shopify orders/create: the line item link': () =>
    orderLinkQuery(db, 'shop-7.myshopify.com', '12345', '112345').select(['order_id', 'shopify_order_name']),
  "Shopify fulfillments: the order's links": () => linksOfOrderQuery(db, 'shop-7.myshopify.com', '12345'),
  "Shopify fulfillments: the order's fulfillments": () => fulfillmentsOfOrderQuery(db, 'shop-7.myshopify.com', '12345'),
  'every process start: shops with a plain-text token': () => plainTextTokenShopsQuery(db, '', 500),
};

describe('hot queries on a seeded database', () => {
  it.each(Object.keys(hotQueries))('%s reads no large table whole', async (name) => {
    const plan = await planOf(hotQueries[name]!());
    expect(seqScannedLargeTables(plan), describePlan(plan)).toEqual([]);
  });

  it("a message's status move reads the message by its primary key, not every message in flight", async () => {
    // Nothing is in flight in the seed, as in production most of the time: a partial index of
    // in-flight messages then looks free to the planner, and scanning it for one id costs as many
    // buffers as there are messages in flight and dead versions not yet vacuumed (+40–70 per
    // processed webhook in the bench's large-table step).
    const moves = [
      ['claimed', 'sending'],
      ['claimed', 'cancelled'],
      ['sending', 'pending'],
      ['sending', 'failed'],
    ] as const;
    for (const [from, to] of moves) {
      const plan = await planOf(
        moveSendQuery(db, { id: 'snd_12345_recipient_video', claim_token: 'token' }, from, { status: to }, NOW),
      );
      expect(indexesIn(plan), `${from} → ${to}\n${describePlan(plan)}`).toEqual(['sends_pkey']);
    }
  });

  it("the pressed-intake claim reads only the recipients' videos' range of the due index, as an index condition", async () => {
    // A filter instead would step over every held sender e-mail on each claim (thousands in a flood).
    const plan = await planOf(compileWith(claimDueSendsQuery(25, NOW, 'token', { only: 'recipient_videos' })));
    const scan = planNodes(plan).find((node) => node['Index Name'] === 'sends_due_recipient_first');
    expect(scan, describePlan(plan)).toBeDefined();
    expect((scan as { 'Index Cond'?: string })['Index Cond'], JSON.stringify(scan, null, 1)).toMatch(/recipient_video/);
  });

  it('the check itself fails on a query no index serves', async () => {
    // A filter on a column no index covers: the proof that a Seq Scan would be caught.
    const plan = await planOf(db.selectFrom('sends').selectAll().where('last_error', '=', 'boom'));
    expect(seqScannedLargeTables(plan)).toEqual(['sends']);
  });
});

/**
 * Shapes like production's: most orders finished long ago (sent, tracking stopped, webhooks
 * processed, outbox empty), a small share live. Order n belongs to account n % ACCOUNTS and to
 * Shopify order n of shop n % 50.
 */
async function seed(db: Db): Promise<void> {
  await sql`insert into accounts (id, name, app_id, api_key_hash)
    select 'acc_' || g, 'Account ' || g, 'app_' || g, md5(g::text) from generate_series(0, ${ACCOUNTS - 1}) g`.execute(
    db,
  );
  await sql`insert into orders (id, account_id, uuid, status, name, email, recipient_name, send_method, send_trigger,
      carrier, tracking_number, delivered, delivered_at, created_at, updated_at, sent_at)
    select 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), md5('o' || g)::uuid,
      case when g % 20 = 0 then 'created' else 'delivered' end, 'Sender', 'sender@example.com', 'Recipient', 'email',
      'package', 'ups', '1Z' || lpad(g::text, 16, '0'), g % 20 <> 0,
      case when g % 20 = 0 then null else ${NOW}::timestamptz - g * interval '1 minute' end,
      ${NOW}::timestamptz - g * interval '1 minute', ${NOW}::timestamptz - g * interval '1 minute',
      case when g % 20 = 0 then null else ${NOW}::timestamptz - g * interval '1 minute' end
    from generate_series(1, ${ORDERS}) g`.execute(db);
  await sql`insert into order_events (order_id, account_id, type, source, data, created_at)
    select 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), t.type, 'system', '{}'::jsonb, ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g,
      (values ('order.created'), ('order.delivered'), ('video.sent')) as t(type)`.execute(db);
  await sql`insert into idempotency_keys (account_id, key, request_hash, order_id)
    select 'acc_' || (g % ${ACCOUNTS}), 'key-' || g, md5(g::text), 'ord_' || g from generate_series(1, ${ORDERS}) g`.execute(
    db,
  );
  // Sent videos are recorded on their orders, as after every normal send (migration 027).
  await sql`insert into sends (id, order_id, account_id, kind, channel, status, due_at, claimed_at, sent_at,
      order_recorded, created_at, updated_at)
    select 'snd_' || g || '_' || k.kind, 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), k.kind, 'email',
      case when g % 100 = 0 then 'pending' else 'sent' end,
      ${NOW}::timestamptz - (g % 100) * interval '1 minute', ${NOW}::timestamptz,
      case when g % 100 = 0 then null else ${NOW}::timestamptz end, g % 100 <> 0,
      ${NOW}::timestamptz, ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g, (values ('recipient_video'), ('sender_sent_note')) as k(kind)`.execute(db);
  await sql`insert into trackings (order_id, account_id, carrier, tracking_number, started_at, next_poll_at,
      stopped_reason, lease_token, lease_until, updated_at)
    select 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), case g % 3 when 0 then 'ups' when 1 then 'fedex' else 'usps' end,
      '1Z' || lpad(g::text, 16, '0'), ${NOW}::timestamptz,
      case when g % 20 = 0 then ${NOW}::timestamptz + (g % 600) * interval '1 minute' else null end,
      case when g % 20 = 0 then null else 'delivered' end,
      case when g % 400 = 0 then 'lease-' || g else null end,
      case when g % 400 = 0 then ${NOW}::timestamptz + interval '1 minute' else null end,
      ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g`.execute(db);
  await sql`insert into webhook_receipts (webhook_id, topic, shop, raw_body, status, received_at)
    select 'whk_' || g, 'orders/create', 'shop-' || (g % 50) || '.myshopify.com', '{}',
      case when g % 500 = 0 then 'received' else 'processed' end, ${NOW}::timestamptz - g * interval '1 second'
    from generate_series(1, ${ORDERS}) g`.execute(db);
  await sql`insert into shopify_order_links (shop, shopify_order_id, line_item_id, order_id, account_id, created_at)
    select 'shop-' || (g % 50) || '.myshopify.com', g::text, (100000 + g)::text, 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}),
      ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g`.execute(db);
  await sql`insert into shopify_fulfillments (shop, fulfillment_id, shopify_order_id, updated_at)
    select 'shop-' || (g % 50) || '.myshopify.com', (200000 + g)::text, g::text, ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g`.execute(db);
  // A relay backlog (a subscriber down for a while): the outbox is large exactly when the relay matters most.
  await sql`insert into order_outbox (subscriber, order_id, account_id, type, data, source, created_at, available_at)
    select s.name, 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), 'order.updated', '{}'::jsonb, 'api', ${NOW}::timestamptz,
      ${NOW}::timestamptz - (g % 50) * interval '1 second'
    from generate_series(1, ${ORDERS / 4}) g, (values ('tracking'), ('notifications')) as s(name)`.execute(db);
  // Every sent order's three-day check: nearly all decided long ago, a few due or still ahead.
  await sql`insert into sender_nudges (order_id, account_id, due_at, decided_at, outcome, created_at)
    select 'ord_' || g, 'acc_' || (g % ${ACCOUNTS}), ${NOW}::timestamptz - (g - 500) * interval '10 minutes',
      case when g <= 500 then null else ${NOW}::timestamptz end, case when g <= 500 then null else 'already_watched' end,
      ${NOW}::timestamptz
    from generate_series(1, ${ORDERS}) g where g % 20 <> 0`.execute(db);
  await sql`insert into account_settings (account_id, logo_url, not_watched_note, updated_at)
    select 'acc_' || g, 'https://cdn.example.com/' || g || '.png', g % 7 <> 0, ${NOW}::timestamptz
    from generate_series(0, ${ACCOUNTS - 1}) g`.execute(db);
  // Every shop's tokens sealed long ago ('enc:v1:' is token-cipher.ts's prefix) but two written in plain text.
  await sql`insert into shops (domain, account_id, access_token, refresh_token, installed_at, updated_at)
    select 'shop-' || g || '.myshopify.com', 'acc_' || (g % ${ACCOUNTS}),
      case when g % 10000 = 0 then 'shpat_plain' else 'enc:v1:k1:' || md5(g::text) end,
      'enc:v1:k1:' || md5('r' || g), ${NOW}::timestamptz, ${NOW}::timestamptz
    from generate_series(0, ${ORDERS - 1}) g`.execute(db);
  await sql`analyze`.execute(db);
}
