import type { AccountSettings } from '../accounts/settings.ts';
import { findAccountSettings } from '../accounts/settings.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderRow } from '../orders/serializer.ts';
import { recordTimeline } from '../orders/timeline.ts';
import type { Channel, NotWatchedOutcome } from '../vocabulary.ts';
import { queueSend } from './sends.ts';

/** Issue 14: the sender hears when the recipient has not watched this long after the video was sent. */
export const NOT_WATCHED_AFTER_MS = 3 * 24 * 60 * 60_000;

/**
 * Why no note was sent, in words (the timeline entry's `reason`, a cancelled send's `last_error`):
 * the merchant's words, English like the admin. The note's own wording is the catalogue's
 * `email_not_watched_…`/`sms_not_watched_…` phrases, in the store's language.
 */
export const NOT_WATCHED_REASONS = {
  order_stopped: 'the order was cancelled or deleted',
  order_gone: 'the order is gone',
  already_watched: 'the recipient has watched the video',
  setting_off: 'the store turned the not-watched note off',
  no_sender_contact: "the order has neither the sender's e-mail nor phone",
  recipient_unreachable: 'the video did not reach the recipient (its send failed); the sender was told of that',
  withdrawn: 'the recipient watched the video',
} as const;

/** What the three-day check decides for one order: the note on a channel, or why none. */
export type NotWatchedDecision =
  { outcome: 'queued'; channel: Channel } | { outcome: Exclude<NotWatchedOutcome, 'queued'>; reason: string };

/**
 * Pure: whether the sender of an order whose video went out three days ago gets the note, and how.
 * By SMS when the sender's phone is known (a text is more likely seen than one more e-mail), else
 * by e-mail to the order's sender address.
 */
export function notWatchedDecision(
  order: Pick<OrderRow, 'status' | 'deleted_at' | 'viewed_at' | 'email' | 'sender_phone'>,
  settings: Pick<AccountSettings, 'notWatchedNote'>,
  /** Whether a recipient video send stands `sent` (a bounce fails it): "waiting unseen" is then true. */
  recipientReached: boolean,
): NotWatchedDecision {
  if (order.status === 'cancelled' || order.deleted_at !== null)
    return { outcome: 'order_stopped', reason: NOT_WATCHED_REASONS.order_stopped };
  if (order.viewed_at !== null) return { outcome: 'already_watched', reason: NOT_WATCHED_REASONS.already_watched };
  if (!recipientReached) return { outcome: 'recipient_unreachable', reason: NOT_WATCHED_REASONS.recipient_unreachable };
  if (!settings.notWatchedNote) return { outcome: 'setting_off', reason: NOT_WATCHED_REASONS.setting_off };
  if (order.sender_phone) return { outcome: 'queued', channel: 'sms' };
  if (order.email.trim() !== '') return { outcome: 'queued', channel: 'email' };
  return { outcome: 'no_sender_contact', reason: NOT_WATCHED_REASONS.no_sender_contact };
}

/** Whether one of the order's recipient video sends stands `sent` (on the `sends (order_id)` index). */
async function recipientVideoSent(trx: Db, orderId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('sends')
    .select('id')
    .where('order_id', '=', orderId)
    .where('kind', '=', 'recipient_video')
    .where('status', '=', 'sent')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Called in the `order.sent` reaction: the order is looked at once, three days after its video
 * first went out. A resend later does not move the check (the row exists; the first send counts).
 */
export async function scheduleNotWatchedCheck(
  trx: Db,
  order: { id: string; account_id: string },
  sentAt: Date,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('sender_nudges')
    .values({
      order_id: order.id,
      account_id: order.account_id,
      due_at: new Date(sentAt.getTime() + NOT_WATCHED_AFTER_MS),
      created_at: now,
    })
    .onConflict((oc) => oc.column('order_id').doNothing())
    .execute();
}

/**
 * The recipient watched after the note was queued but before it went: it is cancelled (a claimed
 * one's dispatcher then finds it moved and never calls the provider); one already sent stays sent.
 */
export async function withdrawNotWatchedNote(
  trx: Db,
  order: { id: string; account_id: string },
  now: Date,
): Promise<void> {
  const cancelled = await trx
    .updateTable('sends')
    .set({ status: 'cancelled', last_error: NOT_WATCHED_REASONS.withdrawn, updated_at: now })
    .where('order_id', '=', order.id)
    .where('kind', '=', 'sender_not_watched_note')
    .where('status', 'in', ['pending', 'claimed'])
    .returning('id')
    .execute();
  if (cancelled.length > 0)
    await recordTimeline(
      trx,
      order,
      'system',
      [
        {
          type: 'send.cancelled',
          data: { kind: 'sender_not_watched_note', reason: NOT_WATCHED_REASONS.withdrawn },
        },
      ],
      now,
    );
}

/**
 * The checks due now, oldest first, locked for this run (SKIP LOCKED: two workers never decide one
 * order). Exported so test/db/hot-query-plans.test.ts explains this text: it runs every tick.
 */
export function dueNotWatchedChecksQuery(db: Db, now: Date, limit: number) {
  return db
    .selectFrom('sender_nudges')
    .select(['order_id', 'account_id', 'due_at'])
    .where('decided_at', 'is', null)
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .orderBy('order_id')
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

/**
 * Decides the due three-day checks: each once, in one transaction with what it decides — the
 * queued note (the `sends` row; the dispatcher sends it like any other message), the check's
 * outcome, and a `note.not_watched` timeline entry saying what was done and why.
 */
export class NotWatchedNotes {
  constructor(private readonly deps: { db: Db; logger: Logger; now: () => Date }) {}

  /** Returns how many checks were decided (at most `limit`); run from the send dispatch tick. */
  async decideDue(limit = 50): Promise<number> {
    const now = this.deps.now();
    const decided = await this.deps.db.transaction().execute(async (trx) => {
      const due = await dueNotWatchedChecksQuery(trx, now, limit).execute();
      const outcomes: NotWatchedOutcome[] = [];
      for (const check of due) {
        const order = await trx.selectFrom('orders').selectAll().where('id', '=', check.order_id).executeTakeFirst();
        const decision = order
          ? notWatchedDecision(
              order,
              await findAccountSettings(trx, check.account_id),
              await recipientVideoSent(trx, order.id),
            )
          : ({ outcome: 'order_stopped', reason: NOT_WATCHED_REASONS.order_gone } as const);
        const outcome = decision.outcome;
        // The sends table's unique live index is the second guard: one live note per order and channel.
        if (order && decision.outcome === 'queued')
          await queueSend(trx, order, { kind: 'sender_not_watched_note', channel: decision.channel, dueAt: now }, now);
        await trx
          .updateTable('sender_nudges')
          .set({ decided_at: now, outcome })
          .where('order_id', '=', check.order_id)
          .execute();
        if (order)
          await recordTimeline(
            trx,
            order,
            'system',
            [
              {
                type: 'note.not_watched',
                data:
                  decision.outcome === 'queued'
                    ? { outcome, channel: decision.channel }
                    : { outcome, reason: decision.reason },
              },
            ],
            now,
          );
        outcomes.push(outcome);
      }
      return outcomes;
    });
    if (decided.length > 0)
      this.deps.logger.info(
        { decided: decided.length, queued: decided.filter((o) => o === 'queued').length },
        'decided not-watched notes',
      );
    return decided.length;
  }
}
