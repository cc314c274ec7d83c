import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import { filterOnly } from '../db/filter-only.ts';
import type { SendsTable } from '../db/schema.ts';
import type { OrderRow } from '../orders/serializer.ts';
import { recordTimeline } from '../orders/timeline.ts';
import type { Channel, EventSource, SendKind, SendStatus } from '../vocabulary.ts';
import { recipientSendPlan } from './send-policy.ts';

export type SendRow = Selectable<SendsTable>;

/** Statuses covered by the `sends_one_live` unique index: at most one such row per order, kind, channel. */
export const LIVE_STATUSES = ['pending', 'claimed', 'sending', 'sent', 'uncertain'] as const;

/**
 * Queues a message unless a live one of the same kind and channel exists for the order. Returns
 * whether a row was added. The unique index, not this code, is what makes a second one impossible.
 */
export async function queueSend(
  db: Db,
  order: { id: string; account_id: string },
  send: { kind: SendKind; channel: Channel; dueAt: Date },
  now: Date,
): Promise<boolean> {
  const inserted = await db
    .insertInto('sends')
    .values({
      id: `snd_${randomBytes(12).toString('hex')}`,
      order_id: order.id,
      account_id: order.account_id,
      kind: send.kind,
      channel: send.channel,
      status: 'pending',
      due_at: send.dueAt,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['order_id', 'kind', 'channel']).where('status', 'in', LIVE_STATUSES).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Makes the recipient's queued video follow the order: queued when it becomes due (delivered with a
 * processed video, the video processed for `now`/`date` triggers), moved or withdrawn when the
 * trigger, date or method changes before anyone tried it. Runs in an order event's transaction.
 */
export async function planRecipientVideo(
  trx: Db,
  order: OrderRow,
  options: {
    now: Date;
    explainWaiting: boolean;
    /** The caller knows the order has no recipient video sends yet (a just-created order): nothing to read. */
    noSendsYet?: boolean;
  },
): Promise<void> {
  const { now } = options;
  const plan = recipientSendPlan(order, now);
  const existing = options.noSendsYet
    ? []
    : await recipientVideoSendsQuery(trx, order.id).select(['id', 'channel', 'status', 'attempts']).execute();
  const untouched = (row: { status: SendStatus; attempts: number }) => row.status === 'pending' && row.attempts === 0;
  const wanted: Channel[] = 'due' in plan ? plan.due.map((send) => send.channel) : [];
  // A queued message nobody tried yet follows the order: a changed trigger, send_on or method
  // moves or withdraws it (deleted, so it never counts as an attempt).
  const withdraw = existing.filter((row) => untouched(row) && !wanted.includes(row.channel));
  if (withdraw.length > 0) {
    await trx
      .deleteFrom('sends')
      .where(
        'id',
        'in',
        withdraw.map((row) => row.id),
      )
      .execute();
    await recordTimeline(
      trx,
      order,
      'system',
      [
        {
          type: 'send.withdrawn',
          data: {
            channels: withdraw.map((row) => row.channel),
            reason: 'waiting' in plan ? plan.waiting : 'send_method changed',
          },
        },
      ],
      now,
    );
  }

  if ('waiting' in plan) {
    // No silent non-send: say on the timeline why delivery did not send the video.
    if (options.explainWaiting)
      await recordTimeline(trx, order, 'system', [{ type: 'send.waiting', data: { reason: plan.waiting } }], now);
    return;
  }
  for (const send of plan.due) {
    const queued = existing.find((row) => row.channel === send.channel && untouched(row));
    if (queued) {
      await rescheduleSendQuery(trx, queued.id, send.dueAt, now).execute();
      continue;
    }
    // Sending happens on its own once per channel; after a failure only an explicit resend
    // (POST /v1/orders/{id}/resend) tries again, so an unrelated edit never re-sends by surprise.
    if (existing.some((row) => row.channel === send.channel)) continue;
    if (await queueSend(trx, order, send, now)) {
      await recordTimeline(
        trx,
        order,
        'system',
        [{ type: 'send.queued', data: { channel: send.channel, due_at: send.dueAt.toISOString() } }],
        now,
      );
    }
  }
}

/**
 * The order will never send: queued and claimed messages are cancelled (a claimed one's dispatcher
 * then finds it moved, or the order stopped, and never calls the provider).
 */
export async function stopSends(
  trx: Db,
  order: { id: string; account_id: string },
  source: EventSource,
  reason: string,
  now: Date,
): Promise<void> {
  const cancelled = await stopSendsQuery(trx, order.id, reason, now).execute();
  if (cancelled.length > 0)
    await recordTimeline(trx, order, source, [{ type: 'send.cancelled', data: { reason } }], now);
}

/**
 * Whether the recipient's video has left our hands, or may have: being handed over (`sending`), its
 * fate unknown after a crash (`uncertain`), or sent while the order has not recorded it yet. Asked by
 * OrderService under the order's row lock before a newly processed video replaces the order's: the
 * recipient may already hold a link to the one that went.
 */
export async function recipientVideoLeft(trx: Db, orderId: string): Promise<boolean> {
  const left = await recipientVideoSendsQuery(trx, orderId)
    .select('id')
    .where('status', 'in', ['sending', 'uncertain', 'sent'])
    .executeTakeFirst();
  return left !== undefined;
}

/** Asked by OrderService under the order's row lock before it stops an order. */
export async function recipientVideoInProgress(trx: Db, orderId: string): Promise<boolean> {
  const inFlight = await recipientVideoSendsQuery(trx, orderId)
    .select('id')
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return inFlight !== undefined;
}

/**
 * Whether the sender's thank-you e-mail has left the queue (claimed, in the provider's hands, sent or
 * uncertain): the recipient's reply is final from then on. Asked by the thanks module under the
 * order's row lock, which the dispatcher's move to `sending` (a share lock) waits for.
 */
export async function thanksSendStarted(db: Db, orderId: string): Promise<boolean> {
  const started = await db
    .selectFrom('sends')
    .select('id')
    .where('order_id', '=', orderId)
    .where('kind', '=', 'sender_thanks')
    .where('status', 'in', ['claimed', 'sending', 'sent', 'uncertain'])
    .executeTakeFirst();
  return started !== undefined;
}

/** A provider accepted the message (`uncertain` too: a slow call the reconciler gave up on that did succeed). */
export async function markSendSent(
  db: Db,
  sendId: string,
  sent: { providerMessageId: string; at: Date },
): Promise<void> {
  await db
    .updateTable('sends')
    .set({
      status: 'sent',
      sent_at: sent.at,
      provider_message_id: sent.providerMessageId,
      last_error: null,
      updated_at: sent.at,
    })
    .where('id', '=', sendId)
    .where('status', 'in', ['sending', 'uncertain'])
    .execute();
}

/**
 * Recipient videos a provider accepted whose order has no `sent_at` (a crash between the two writes).
 * Read through the partial index of sent videos not yet recorded (migration 027), so its cost
 * follows the handful in that state, not every message ever sent.
 */
export async function unrecordedSentVideos(db: Db, sentBefore: Date, limit = 100): Promise<SendRow[]> {
  return unrecordedSentVideosQuery(db, sentBefore, limit).execute();
}

export function unrecordedSentVideosQuery(db: Db, sentBefore: Date, limit: number) {
  return db
    .selectFrom('sends')
    .innerJoin('orders', 'orders.id', 'sends.order_id')
    .selectAll('sends')
    .where('sends.kind', '=', 'recipient_video')
    .where('sends.status', '=', 'sent')
    .where('sends.order_recorded', '=', false)
    .where('orders.sent_at', 'is', null)
    .where('sends.sent_at', '<', sentBefore)
    .orderBy('sends.sent_at')
    .orderBy('sends.id')
    .limit(limit);
}

/** The order recorded this sent video (its `order.sent` event): the crash repair need not look at it again. */
export async function markSendRecorded(trx: Db, sendId: string): Promise<void> {
  await trx.updateTable('sends').set({ order_recorded: true }).where('id', '=', sendId).execute();
}

/** Privacy erasure: the addresses messages went to are personal data too. */
export async function forgetDestinations(trx: Db, orderId: string): Promise<void> {
  await trx.updateTable('sends').set({ destination: null }).where('order_id', '=', orderId).execute();
}

/**
 * Moves a claimed message to `sending`, the last step before the provider call, under a share lock
 * on its order: an order stopped meanwhile cancels the message instead, and an order cannot be
 * stopped while this runs (OrderService takes the row lock, then finds the message `sending`).
 * `unwantedBecause` names a reason the order now gives not to send this message at all (the
 * not-watched note once the recipient watched): it is cancelled, with the reason on the timeline.
 */
export async function startSending(
  db: Db,
  send: SendRow,
  destinationOf: (order: OrderRow) => string | null,
  now: Date,
  unwantedBecause: (order: OrderRow) => string | null = () => null,
): Promise<
  | { kind: 'started'; order: OrderRow; destination: string }
  | { kind: 'no_destination'; order: OrderRow }
  | { kind: 'stopped' | 'lost' }
> {
  return db.transaction().execute(async (trx) => {
    const order = await trx
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', send.order_id)
      .forShare()
      .executeTakeFirstOrThrow();
    if (order.status === 'cancelled' || order.deleted_at !== null) {
      await moveSend(trx, send, 'claimed', { status: 'cancelled', last_error: 'order cancelled or deleted' }, now);
      return { kind: 'stopped' };
    }
    const unwanted = unwantedBecause(order);
    if (unwanted) {
      if (await moveSend(trx, send, 'claimed', { status: 'cancelled', last_error: unwanted }, now))
        await recordTimeline(
          trx,
          order,
          'system',
          [{ type: 'send.cancelled', data: { kind: send.kind, reason: unwanted } }],
          now,
        );
      return { kind: 'stopped' };
    }
    const destination = destinationOf(order);
    if (!destination) return { kind: 'no_destination', order };
    // `claimed_at` restarts here: the reconciler's "stuck in sending" clock starts at the provider call.
    const moved = await moveSend(trx, send, 'claimed', { status: 'sending', destination, claimed_at: now }, now);
    return moved ? { kind: 'started', order, destination } : { kind: 'lost' };
  });
}

/**
 * Claims due messages for one dispatcher: the recipients' videos first — the moment the product
 * exists for must not wait behind a backlog of sender e-mails (a burst of new orders queues a
 * record link each) — then earliest due first (id breaks ties, so every run is the same). The
 * `sends_due_recipient_first` index (migration 026) serves exactly this order. SKIP LOCKED:
 * concurrent dispatchers never wait on or take the same row; `pending → claimed` happens once per
 * attempt.
 */
export async function claimDueSends(db: Db, limit: number, now: Date, options: ClaimOptions = {}): Promise<SendRow[]> {
  return (await claimDueSendsQuery(limit, now, randomUUID(), options).execute(db)).rows;
}

/**
 * What a claim takes: messages due by `dueBy` (default now; earlier when the other kinds are held
 * back, dispatcher.ts `dispatchDue`), of every kind or only recipients' videos.
 */
export interface ClaimOptions {
  dueBy?: Date;
  only?: 'every_kind' | 'recipient_videos';
}

/** Moves a send from one status to another only if it is still where this dispatcher left it. */
export async function moveSend(
  db: Db,
  send: SendRow,
  from: SendStatus,
  changes: Partial<Omit<SendRow, 'id'>> & { status: SendStatus },
  now: Date,
): Promise<boolean> {
  const result = await moveSendQuery(db, send, from, changes, now).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/*
 * Builders of the queries every order change and every dispatcher tick run, exported so that
 * test/db/hot-query-plans.test.ts explains the text run here.
 */

/**
 * The update behind moveSend: every message's claimed → sending → sent runs it. The status is only
 * checked (filterOnly): compared bare, it let the planner scan the whole partial index
 * `sends_in_flight` for the one id — a buffer per message in flight and per dead version not yet
 * vacuumed, +40–70 per processed webhook on the bench's million-row database.
 */
export function moveSendQuery(
  db: Db,
  send: Pick<SendRow, 'id' | 'claim_token'>,
  from: SendStatus,
  changes: Partial<Omit<SendRow, 'id'>> & { status: SendStatus },
  now: Date,
) {
  return db
    .updateTable('sends')
    .set({ ...changes, updated_at: now })
    .where('id', '=', send.id)
    .where(filterOnly('status'), '=', from)
    .where('claim_token', '=', send.claim_token);
}

/**
 * A queued message's new due time, if it is still queued. Its status is only checked (filterOnly),
 * as in moveSendQuery: while hardly anything is queued, a bare `status = 'pending'` makes the partial
 * `sends_due` indexes look free to the planner.
 */
export function rescheduleSendQuery(db: Db, sendId: string, dueAt: Date, now: Date) {
  return db
    .updateTable('sends')
    .set({ due_at: dueAt, updated_at: now })
    .where('id', '=', sendId)
    .where(filterOnly('status'), '=', 'pending');
}

/** The recipient's video messages of one order (every order change plans them); select the columns you need. */
export function recipientVideoSendsQuery(db: Db, orderId: string) {
  return db.selectFrom('sends').where('order_id', '=', orderId).where('kind', '=', 'recipient_video');
}

export function stopSendsQuery(trx: Db, orderId: string, reason: string, now: Date) {
  return trx
    .updateTable('sends')
    .set({ status: 'cancelled', updated_at: now, last_error: reason })
    .where('order_id', '=', orderId)
    .where('status', 'in', ['pending', 'claimed'])
    .returning('id');
}

export function claimDueSendsQuery(limit: number, now: Date, token: string, options: ClaimOptions = {}) {
  const dueBy = options.dueBy ?? now;
  // The index's own expression with IS FALSE, so recipients' videos alone are the index's first
  // range (an index condition), not a filter over every other message due: the planner rewrites
  // `= false` and NOT into kind = 'recipient_video', which the index does not have
  // (test/db/hot-query-plans.test.ts).
  const kinds = options.only === 'recipient_videos' ? sql`and (kind <> 'recipient_video') is false` : sql``;
  // RETURNING has no order of its own: the claimed rows are read back in the claim's order, which is
  // the order the dispatcher delivers them in (one ORDER BY, not a second one in JavaScript).
  return sql<SendRow>`
    with claimed as (
      update sends set status = 'claimed', claim_token = ${token}, claimed_at = ${now}, attempts = attempts + 1, updated_at = ${now}
      where id in (
        select id from sends where status = 'pending' and due_at <= ${dueBy} ${kinds}
        order by (kind <> 'recipient_video'), due_at, id limit ${limit}
        for update skip locked
      )
      returning *
    )
    select * from claimed order by (kind <> 'recipient_video'), due_at, id`;
}

/**
 * The e-mail a provider's event is about: by our Message-ID (`<snd_…@doorstep>`, the send's id) when
 * the event carries it, else by the id the provider's SMTP server gave the message when it took it.
 */
export async function findEmailSend(
  db: Db,
  ids: { sendId: string | null; providerMessageId: string | null },
): Promise<SendRow | undefined> {
  if (ids.sendId) {
    const byId = await db
      .selectFrom('sends')
      .selectAll()
      .where('id', '=', ids.sendId)
      .where('channel', '=', 'email')
      .executeTakeFirst();
    if (byId) return byId;
  }
  if (!ids.providerMessageId) return undefined;
  return emailSendByProviderIdQuery(db, ids.providerMessageId).executeTakeFirst();
}

export function emailSendByProviderIdQuery(db: Db, providerMessageId: string) {
  return db
    .selectFrom('sends')
    .selectAll()
    .where('provider_message_id', '=', providerMessageId)
    .where('channel', '=', 'email')
    .orderBy('created_at', 'desc')
    .limit(1);
}

/**
 * The provider says an e-mail it had accepted will never arrive (hard bounce, complaint, drop): the
 * send becomes `failed` with the reason. Only a send that counted as out (`sent`, or `uncertain`)
 * changes; one already failed or `replaced` stays. Returns whether it changed.
 */
export async function markSendBounced(trx: Db, sendId: string, reason: string, now: Date): Promise<boolean> {
  const result = await trx
    .updateTable('sends')
    .set({ status: 'failed', last_error: reason, bounced_at: now, updated_at: now })
    .where('id', '=', sendId)
    .where('status', 'in', ['sent', 'uncertain'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
