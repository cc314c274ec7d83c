import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { EmailEventsTable } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { recordTimeline } from '../orders/timeline.ts';
import type { EmailEventOutcome } from '../vocabulary.ts';
import { BOUNCE_PHRASES } from './bounce-phrases.ts';
import { failsTheSend, sendIdFromMessageId, type EmailProviderEvent } from './email-event-kinds.ts';
import { findEmailSend, markSendBounced, queueSend } from './sends.ts';

type EmailEventRow = Selectable<EmailEventsTable>;

/**
 * E-mail providers' events (docs/notifications.md "Bounces"): stored raw when they arrive, so the
 * provider gets its 200 at once and nothing is lost if we stop; applied after, each in one
 * transaction that also marks it processed, so an event has its effect exactly once — by the
 * receiving process right away, or by the reconciler for whatever that missed. A redelivered event
 * (same provider event id) is not stored again.
 */
export class EmailEvents {
  constructor(
    private readonly deps: {
      db: Db;
      logger: Logger;
      now: () => Date;
      /** A sender's note was queued: dispatch now rather than on the next tick. */
      onMessagesQueued?: () => void;
    },
  ) {}

  /** Stores events; returns how many were new (the others were redeliveries). */
  async store(events: ReadonlyArray<{ event: EmailProviderEvent; body: unknown }>): Promise<number> {
    if (events.length === 0) return 0;
    const now = this.deps.now();
    const stored = await this.deps.db
      .insertInto('email_events')
      .values(
        events.map(({ event, body }) => ({
          id: randomUUID(),
          provider: event.provider,
          event_key: event.eventKey,
          body: JSON.stringify(body),
          event: JSON.stringify(event),
          received_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['provider', 'event_key']).doNothing())
      .returning('id')
      .execute();
    return stored.length;
  }

  /** Applies stored events not yet processed, oldest first; returns how many it processed. */
  async processPending(limit = 100): Promise<number> {
    let processed = 0;
    let notesQueued = false;
    for (; processed < limit; processed++) {
      const result = await this.deps.db.transaction().execute(async (trx) => {
        // SKIP LOCKED: two processes never apply one event; a failure rolls the event back to pending.
        const row = await sql<EmailEventRow>`
          select * from email_events where processed_at is null
          order by received_at, id limit 1 for update skip locked`
          .execute(trx)
          .then((r) => r.rows[0]);
        if (!row) return null;
        const event = (typeof row.event === 'string' ? JSON.parse(row.event) : row.event) as EmailProviderEvent;
        const applied = await this.apply(trx, event);
        await trx
          .updateTable('email_events')
          .set({ processed_at: this.deps.now(), outcome: applied.outcome, send_id: applied.sendId })
          .where('id', '=', row.id)
          .execute();
        return applied;
      });
      if (!result) break;
      notesQueued ||= result.noteQueued;
    }
    if (notesQueued) this.deps.onMessagesQueued?.();
    return processed;
  }

  private async apply(
    trx: Db,
    event: EmailProviderEvent,
  ): Promise<{ outcome: EmailEventOutcome; sendId: string | null; noteQueued: boolean }> {
    const { logger } = this.deps;
    const now = this.deps.now();
    const send = await findEmailSend(trx, {
      sendId: sendIdFromMessageId(event.messageIdHeader),
      providerMessageId: event.providerMessageId,
    });
    if (!send) {
      // Not ours (another system on the same provider account), or long gone: worth knowing, not an error.
      // The provider's ids only: the event itself may name the address.
      logger.info(
        { provider: event.provider, eventKey: event.eventKey, kind: event.kind },
        'e-mail event for a message we do not know',
      );
      return { outcome: 'unknown_message', sendId: null, noteQueued: false };
    }
    if (!failsTheSend(event.kind)) return { outcome: 'recorded', sendId: send.id, noteQueued: false };
    const reason = BOUNCE_PHRASES.lastError(event.kind, event.reason);
    if (!(await markSendBounced(trx, send.id, reason, now)))
      return { outcome: 'already_settled', sendId: send.id, noteQueued: false };

    const order = await trx
      .selectFrom('orders')
      .select(['id', 'account_id', 'email'])
      .where('id', '=', send.order_id)
      .executeTakeFirstOrThrow();
    await recordTimeline(
      trx,
      order,
      'system',
      [
        {
          type: 'send.bounced',
          // No address: the provider, what happened and the server's words with addresses removed.
          data: {
            kind: send.kind,
            channel: 'email',
            provider: event.provider,
            bounce_type: event.kind,
            provider_type: event.providerType,
            reason: event.reason,
          },
        },
      ],
      now,
    );
    logger.info(
      { provider: event.provider, orderId: order.id, sendId: send.id, kind: event.kind },
      'an e-mail bounced after it was sent',
    );
    // The sender hears of their gift's bounce, unless the address that bounced is their own (a gift
    // to themselves, or a note to them): the merchant sees it on the order either way.
    const senderOwnAddress =
      send.kind !== 'recipient_video' || (send.destination ?? '').toLowerCase() === order.email.toLowerCase();
    const noteQueued =
      !senderOwnAddress &&
      (await queueSend(trx, order, { kind: 'sender_bounce_note', channel: 'email', dueAt: now }, now));
    return { outcome: 'send_failed', sendId: send.id, noteQueued };
  }
}
