import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ThanksTable } from '../db/schema.ts';
import type { ThanksReply } from '../vocabulary.ts';

/** Persistence of the `thanks` table (written only by this module): one reply per order. */
export type ThanksRow = Selectable<ThanksTable>;

export async function findThanks(db: Db, orderId: string): Promise<ThanksRow | undefined> {
  return db.selectFrom('thanks').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export async function findThanksByKey(db: Db, key: string): Promise<ThanksRow | undefined> {
  return db.selectFrom('thanks').selectAll().where('key', '=', key).executeTakeFirst();
}

/**
 * Saves the reply as the order's one reply: the first creates the row and its key (the sender's
 * link), a replacement keeps the key. A note clears the video and the other way round: the reply
 * is what the recipient gave last.
 */
export async function saveReply(
  trx: Db,
  order: { id: string; account_id: string },
  reply: { kind: 'note'; note: string } | { kind: 'video'; videoId: string },
  now: Date,
): Promise<void> {
  const values = {
    reply: reply.kind satisfies ThanksReply,
    note: reply.kind === 'note' ? reply.note : null,
    video_id: reply.kind === 'video' ? reply.videoId : null,
    recorded_at: now,
  };
  await trx
    .insertInto('thanks')
    .values({ order_id: order.id, account_id: order.account_id, key: randomUUID(), sent_at: null, ...values })
    .onConflict((oc) => oc.column('order_id').doUpdateSet(values))
    .execute();
}

export async function markThanksSent(trx: Db, orderId: string, at: Date): Promise<void> {
  await trx
    .updateTable('thanks')
    .set({ sent_at: at })
    .where('order_id', '=', orderId)
    .where('sent_at', 'is', null)
    .execute();
}

/** Privacy erasure: the note is the recipient's words (the reply video goes with the order's videos). */
export async function forgetThanks(trx: Db, orderId: string): Promise<void> {
  await trx.deleteFrom('thanks').where('order_id', '=', orderId).execute();
}
