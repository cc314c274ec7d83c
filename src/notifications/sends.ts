import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SendsTable } from '../db/schema.ts';
import { ConflictError } from '../errors.ts';
import { recordEvents, type EventSource } from '../orders/events.ts';
import type { OrderChangeListener } from '../orders/service.ts';
import { recipientSendPlan, type Channel, type SendKind } from './send-policy.ts';

export type SendRow = Selectable<SendsTable>;

/** Statuses covered by the `sends_one_live` unique index: at most one such row per order, kind, channel. */
export const LIVE_STATUSES = ['pending', 'claimed', 'sending', 'sent', 'uncertain'] as const;

/**
 * Queues a message unless a live one of the same kind and channel exists for the order. Returns
 * whether a row was added. The unique index, not this code, is what makes a second one impossible.
 */
export async function queueSend(db: Db, order: { id: string; account_id: string }, send: { kind: SendKind; channel: Channel; dueAt: Date }, now: Date): Promise<boolean> {
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
 * Queues the recipient's video the moment an order change makes it due (delivered with a processed
 * video, the video processed for `now`/`date` triggers), a note to the sender on the first view, and
 * cancels what is pending when the order stops. Runs inside the change's transaction.
 */
export function sendListener(options: { now: () => Date }): OrderChangeListener {
  return async (trx, change) => {
    const { order } = change;
    const now = options.now();
    if (change.stopped) {
      await stopSends(trx, order, change.source, `order ${change.stopped}`, now);
      return;
    }

    const plan = recipientSendPlan(order, now);
    const existing = await trx.selectFrom('sends').select(['id', 'channel', 'status', 'attempts']).where('order_id', '=', order.id).where('kind', '=', 'recipient_video').execute();
    const untouched = (row: { status: string; attempts: number }) => row.status === 'pending' && row.attempts === 0;
    const wanted = 'due' in plan ? plan.due.map((send) => send.channel) : [];
    // A queued message nobody tried yet follows the order: a changed trigger, send_on or method
    // moves or withdraws it (deleted, so it never counts as an attempt).
    const withdraw = existing.filter((row) => untouched(row) && !wanted.includes(row.channel as Channel));
    if (withdraw.length > 0) {
      await trx.deleteFrom('sends').where('id', 'in', withdraw.map((row) => row.id)).execute();
      await recordEvents(trx, order, 'system', [{ type: 'send.withdrawn', data: { channels: withdraw.map((row) => row.channel), reason: 'waiting' in plan ? plan.waiting : 'send_method changed' } }], now);
    }

    if ('due' in plan) {
      for (const send of plan.due) {
        const queued = existing.find((row) => row.channel === send.channel && untouched(row));
        if (queued) {
          await trx.updateTable('sends').set({ due_at: send.dueAt, updated_at: now }).where('id', '=', queued.id).where('status', '=', 'pending').execute();
          continue;
        }
        // Sending happens on its own once per channel; after a failure only an explicit resend
        // (POST /v1/orders/{id}/resend) tries again, so an unrelated edit never re-sends by surprise.
        if (existing.some((row) => row.channel === send.channel)) continue;
        if (await queueSend(trx, order, send, now)) {
          await recordEvents(trx, order, 'system', [{ type: 'send.queued', data: { channel: send.channel, due_at: send.dueAt.toISOString() } }], now);
        }
      }
    } else if (change.delivered) {
      // No silent non-send: say on the timeline why delivery did not send the video.
      await recordEvents(trx, order, 'system', [{ type: 'send.waiting', data: { reason: plan.waiting } }], now);
    }

    if (change.viewed) await queueSend(trx, order, { kind: 'sender_viewed_note', channel: 'email', dueAt: now }, now);
  };
}

/**
 * The order will never send: queued and claimed messages are cancelled (a claimed one's dispatcher
 * then finds it moved and stops before the provider). A message being handed to the provider right
 * now cannot be recalled, so the stop is refused instead of claiming a cancel that is not true.
 */
async function stopSends(trx: Db, order: { id: string; account_id: string }, source: EventSource, reason: string, now: Date): Promise<void> {
  const inFlight = await trx.selectFrom('sends').select('id').where('order_id', '=', order.id).where('kind', '=', 'recipient_video').where('status', '=', 'sending').executeTakeFirst();
  if (inFlight) throw new ConflictError('The video is being sent to the recipient right now and can no longer be stopped.');
  const cancelled = await trx
    .updateTable('sends')
    .set({ status: 'cancelled', updated_at: now, last_error: reason })
    .where('order_id', '=', order.id)
    .where('status', 'in', ['pending', 'claimed'])
    .returning('id')
    .execute();
  if (cancelled.length > 0) await recordEvents(trx, order, source, [{ type: 'send.cancelled', data: { reason } }], now);
}

/**
 * Claims due messages for one dispatcher, earliest due first (id breaks ties, so every run is the
 * same). SKIP LOCKED: concurrent dispatchers never wait on or take the same row;
 * `pending → claimed` happens once per attempt.
 */
export async function claimDueSends(db: Db, limit: number, now: Date): Promise<SendRow[]> {
  const token = randomUUID();
  const result = await sql<SendRow>`
    update sends set status = 'claimed', claim_token = ${token}, claimed_at = ${now}, attempts = attempts + 1, updated_at = ${now}
    where id in (
      select id from sends where status = 'pending' and due_at <= ${now}
      order by due_at, id limit ${limit}
      for update skip locked
    )
    returning *`.execute(db);
  // RETURNING has no order of its own; the dispatcher delivers in the order given.
  return result.rows.sort((a, b) => a.due_at.getTime() - b.due_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Moves a send from one status to another only if it is still where this dispatcher left it. */
export async function moveSend(db: Db, send: SendRow, from: string, changes: Partial<Omit<SendRow, 'id'>> & { status: string }, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('sends')
    .set({ ...changes, updated_at: now })
    .where('id', '=', send.id)
    .where('status', '=', from)
    .where('claim_token', '=', send.claim_token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
