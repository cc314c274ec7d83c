import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.ts';
import { listOrders, orderContexts } from '../../../src/shopify/admin/order-reads.ts';
import { deriveStage, ORDER_STAGES, type OrderStage } from '../../../src/shopify/admin/stage.ts';
import type { SendStatus, TrackingStopReason, VideoStatus } from '../../../src/vocabulary.ts';
import { openTestDatabase, type TestDatabase } from '../../support/database.ts';

/**
 * The list's stage filter (SQL, stage-sql.ts) must select exactly the orders whose derived stage
 * (pure, stage.ts) is the filter. Orders are seeded in a few hundred mixes of the facts that decide
 * the stage, rows written straight into a real database; every stage must be among them.
 */
let database: TestDatabase;
let accountId: string;
beforeAll(async () => {
  database = await openTestDatabase();
  accountId = (await createAccount(database.db, { name: 'Stage store' })).account.id;
  await seed([...STAGE_EXAMPLES, ...randomSpecs(360)]);
});
afterAll(async () => {
  await database?.close();
});

interface Spec {
  status: 'created' | 'recorded' | 'delivered' | 'cancelled';
  recipient: 'email' | 'sms' | 'none';
  videoProcessed: boolean;
  sent: boolean;
  viewed: boolean;
  trigger: 'package' | 'date' | 'now';
  carrier: boolean;
  sends: SendStatus[];
  videos: VideoStatus[];
  link: 'none' | 'plain' | 'via' | 'awaiting' | 'blocked';
  stopped: TrackingStopReason | 'tracking' | 'none';
}

const choices = {
  status: ['created', 'recorded', 'delivered', 'cancelled'],
  recipient: ['email', 'sms', 'none'],
  videoProcessed: [true, false],
  sent: [false, true],
  viewed: [false, true],
  trigger: ['package', 'date', 'now'],
  carrier: [true, false],
  sends: [
    [],
    ['failed'],
    ['uncertain'],
    ['failed', 'pending'],
    ['sent'],
    ['cancelled'],
    ['failed', 'sent'],
    ['claimed'],
  ],
  videos: [[], ['pending'], ['failed'], ['processed', 'failed'], ['failed', 'pending'], ['processed']],
  link: ['none', 'plain', 'via', 'awaiting', 'blocked'],
  stopped: ['none', 'tracking', 'expired', 'returned', 'order_delivered'],
} as const;

/** A UPS package on its way for an order with a recipient and a processed video; one example per stage from it. */
const tracked: Spec = {
  status: 'recorded',
  recipient: 'email',
  videoProcessed: true,
  sent: false,
  viewed: false,
  trigger: 'package',
  carrier: true,
  sends: [],
  videos: ['processed'],
  link: 'none',
  stopped: 'tracking',
};
const STAGE_EXAMPLES: Spec[] = [
  tracked,
  { ...tracked, link: 'plain' },
  { ...tracked, carrier: false, stopped: 'none' },
  { ...tracked, carrier: false, link: 'plain', stopped: 'none' },
  { ...tracked, carrier: false, link: 'via', stopped: 'none' },
  { ...tracked, carrier: false, link: 'awaiting', stopped: 'none' },
  { ...tracked, status: 'delivered', sends: ['pending'], stopped: 'order_delivered' },
  { ...tracked, status: 'delivered', sent: true, sends: ['sent'] },
  { ...tracked, status: 'delivered', sent: true, viewed: true, sends: ['sent'] },
  { ...tracked, status: 'cancelled' },
  { ...tracked, status: 'created', videoProcessed: false, videos: [] },
  { ...tracked, recipient: 'none', videoProcessed: false, videos: [] },
  { ...tracked, trigger: 'date' },
  { ...tracked, status: 'delivered', sends: ['failed'] },
  { ...tracked, stopped: 'expired' },
  { ...tracked, carrier: false, link: 'blocked' },
];

function randomSpecs(count: number): Spec[] {
  let state = 42;
  const pick = (values: readonly unknown[]): unknown => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return values[(state >>> 12) % values.length]!;
  };
  return Array.from(
    { length: count },
    () => Object.fromEntries(Object.entries(choices).map(([key, values]) => [key, pick(values)])) as unknown as Spec,
  );
}

async function seed(specs: Spec[]): Promise<void> {
  const db = database.db;
  const now = new Date('2026-12-01T10:00:00Z');
  for (const [i, spec] of specs.entries()) {
    const sent = spec.sent;
    const id = `ord_${randomBytes(12).toString('hex')}`;
    await db
      .insertInto('orders')
      .values({
        id,
        account_id: accountId,
        uuid: randomUUID(),
        status: spec.status,
        name: `Sender ${i}`,
        email: `sender${i}@example.com`,
        recipient_name: `Recipient ${i}`,
        recipient_email: spec.recipient === 'email' ? `r${i}@example.com` : null,
        recipient_phone: spec.recipient === 'sms' ? '+14155550100' : null,
        send_method: spec.recipient === 'sms' ? 'sms' : 'email',
        send_trigger: spec.trigger,
        send_on: spec.trigger === 'date' ? now : null,
        carrier: spec.carrier ? 'ups' : null,
        tracking_number: spec.carrier ? '1Z5R89390357567127' : null,
        delivered: spec.status === 'delivered',
        delivered_at: spec.status === 'delivered' ? now : null,
        video_title: 'A video',
        video_processed: spec.videoProcessed,
        sent_at: sent ? now : null,
        viewed_at: sent && spec.viewed ? now : null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    for (const [n, status] of spec.sends.entries())
      await db
        .insertInto('sends')
        .values({
          id: `snd_${randomBytes(12).toString('hex')}`,
          order_id: id,
          account_id: accountId,
          kind: 'recipient_video',
          // Live rows are one per channel (the sends_one_live index): a second live row uses the other channel.
          channel: n === 0 ? 'email' : 'sms',
          status,
          due_at: now,
          last_error: status === 'failed' ? 'mailbox unavailable' : null,
          created_at: now,
          updated_at: new Date(now.getTime() + n * 1000),
        })
        .execute();
    for (const status of spec.videos)
      await db
        .insertInto('videos')
        .values({
          id: `vid_${randomBytes(12).toString('hex')}`,
          order_id: id,
          storage_key: `k/${randomUUID()}`,
          content_type: 'video/webm',
          size_bytes: 10,
          status,
          failure_reason: status === 'failed' ? 'not a video' : null,
          created_at: now,
        })
        .execute();
    if (spec.link !== 'none')
      await db
        .insertInto('shopify_order_links')
        .values({
          shop: 'stage.myshopify.com',
          shopify_order_id: String(1000 + i),
          line_item_id: '1',
          order_id: id,
          account_id: accountId,
          notice:
            spec.link === 'via'
              ? 'delivery.via_shopify: Doorstep does not track "Canada Post"'
              : spec.link === 'awaiting'
                ? "delivery.awaiting_shipment: 1 of the gift's 2 items has not shipped yet (Shopify line item 2)"
                : spec.link === 'blocked'
                  ? 'delivery.blocked: the Shopify order has no item that ships'
                  : null,
          shopify_order_name: `#${1000 + i}`,
          created_at: now,
        })
        .execute();
    if (spec.stopped !== 'none')
      await db
        .insertInto('trackings')
        .values({
          order_id: id,
          account_id: accountId,
          carrier: 'ups',
          tracking_number: '1Z5R89390357567127',
          started_at: now,
          next_poll_at: spec.stopped === 'tracking' ? now : null,
          stopped_reason: spec.stopped === 'tracking' ? null : spec.stopped,
          updated_at: now,
        })
        .execute();
  }
}

async function filtered(stage: OrderStage): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listOrders(database.db, accountId, { stage, limit: 100, cursor });
    ids.push(...page.orders.map((context) => context.order.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids.sort();
}

describe('the stage filter', () => {
  it('selects exactly the orders whose derived stage it names, for every stage', async () => {
    const all = await database.db.selectFrom('orders').selectAll().where('account_id', '=', accountId).execute();
    expect(all).toHaveLength(STAGE_EXAMPLES.length + 360);
    const derived = new Map<OrderStage, string[]>();
    for (const context of await orderContexts(database.db, all)) {
      const stage = deriveStage(context.facts);
      derived.set(stage, [...(derived.get(stage) ?? []), context.order.id]);
    }
    for (const stage of ORDER_STAGES) {
      const expected = (derived.get(stage) ?? []).sort();
      expect({ stage, seeded: expected.length > 0 }).toEqual({ stage, seeded: true });
      expect({ stage, ids: await filtered(stage) }).toEqual({ stage, ids: expected });
    }
  });
});
