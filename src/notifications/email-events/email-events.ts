import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EmailEventsTable } from '../../db/schema.ts';
import type { Logger } from '../../logger.ts';
import { recordTimeline } from '../../orders/timeline.ts';
import type { EmailEventOutcome } from '../../vocabulary.ts';
import { BOUNCE_PHRASES } from './bounce-phrases.ts';
import { failsTheSend, sendIdFromMessageId, type EmailProviderEvent } from './email-event-kinds.ts';
import { findEmailSend, markSendBounced, queueSend, type SendRow } from '../sends.ts';

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
      /** An uncertain thank-you e-mail resolved as sent: the thanks module marks its reply sent, in this transaction. */
      thanksSent?: (trx: Db, orderId: string, at: Date) => Promise<void>;
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

  /**
   * Applies stored events not yet processed, oldest first; returns how many it processed. An event
   * that fails is logged (ids only), left pending for the next run and passed over in this one, so
   * it never holds up the events behind it.
   */
  async processPending(limit = 100): Promise<number> {
    let processed = 0;
    let notesQueued = false;
    const passedOver: string[] = [];
    while (processed < limit) {
      let rowId: string | null = null;
      let result: { noteQueued: boolean } | 'wait' | null;
      try {
        result = await this.deps.db.transaction().execute(async (trx) => {
          // SKIP LOCKED: two processes never apply one event; a failure rolls the event back to pending.
          const row = await sql<EmailEventRow>`
            select * from email_events where processed_at is null
            ${passedOver.length > 0 ? sql`and id not in (${sql.join(passedOver)})` : sql``}
            order by received_at, id limit 1 for update skip locked`
            .execute(trx)
            .then((r) => r.rows[0]);
          if (!row) return null;
          rowId = row.id;
          const event = (typeof row.event === 'string' ? JSON.parse(row.event) : row.event) as EmailProviderEvent;
          const applied = await this.apply(trx, event);
          if (applied === 'wait') return applied;
          await trx
            .updateTable('email_events')
            // The provider's body names the address; once applied, nothing needs it (privacy).
            .set({ processed_at: this.deps.now(), outcome: applied.outcome, send_id: applied.sendId, body: null })
            .where('id', '=', row.id)
            .execute();
          return applied;
        });
      } catch (error) {
        if (rowId === null) throw error; // the read itself failed: nothing to pass over
        passedOver.push(rowId);
        this.deps.logger.warn({ err: error, emailEventId: rowId }, 'could not apply an e-mail event; it is retried');
        continue;
      }
      if (!result) break;
      if (result === 'wait') {
        passedOver.push(rowId!); // pending still: the next run (the reconciler's) applies it
        continue;
      }
      processed++;
      notesQueued ||= result.noteQueued;
    }
    if (notesQueued) this.deps.onMessagesQueued?.();
    return processed;
  }

  /**
   * An uncertain send (its process died mid-call) the provider reports on — delivered, opened,
   * deferred, processed — was taken by the provider: `sent`, never sent again. Its `sent_at` is when
   * the call was made; a recipient's video is recorded on its order by the dispatcher's crash repair
   * (`recordUnrecordedSends`, on the reconciler's next run), as for any send the order missed.
   */
  private async resolveAsSent(trx: Db, send: SendRow, event: EmailProviderEvent, now: Date): Promise<void> {
    const sentAt = send.claimed_at ?? now;
    const result = await trx
      .updateTable('sends')
      .set({
        status: 'sent',
        sent_at: sentAt,
        provider_message_id: event.providerMessageId ?? send.provider_message_id,
        last_error: null,
        updated_at: now,
      })
      .where('id', '=', send.id)
      .where('status', '=', 'uncertain')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return;
    await recordTimeline(
      trx,
      { id: send.order_id, account_id: send.account_id },
      'system',
      [
        {
          type: 'send.resolved',
          data: {
            kind: send.kind,
            channel: 'email',
            outcome: 'sent',
            provider: event.provider,
            provider_type: event.providerType,
            reason: `The e-mail provider reported the message (${event.providerType}), so it went out; it is not sent again.`,
          },
        },
      ],
      now,
    );
    if (send.kind === 'sender_thanks') await this.deps.thanksSent?.(trx, send.order_id, sentAt);
    this.deps.logger.info(
      { provider: event.provider, sendId: send.id, orderId: send.order_id },
      'an uncertain e-mail resolved as sent by its provider event',
    );
  }

  private async apply(
    trx: Db,
    event: EmailProviderEvent,
  ): Promise<{ outcome: EmailEventOutcome; sendId: string | null; noteQueued: boolean } | 'wait'> {
    const { logger } = this.deps;
    const now = this.deps.now();
    const send = await findEmailSend(trx, {
      sendId: event.sendId ?? sendIdFromMessageId(event.messageIdHeader),
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
    if (!failsTheSend(event.kind)) {
      // Any event but a failure means the provider took the message: an uncertain send went out.
      if (send.status === 'uncertain') await this.resolveAsSent(trx, send, event, now);
      return { outcome: 'recorded', sendId: send.id, noteQueued: false };
    }
    // The provider can answer before our own "sent" commits (a suppressed address, a database blip
    // while recording): the event waits for the send to settle rather than being lost to it.
    if (send.status === 'claimed' || send.status === 'sending') return 'wait';
    const reason = BOUNCE_PHRASES.lastError(event.kind, event.reason);
    if (!(await markSendBounced(trx, send.id, reason, now)))
      return { outcome: 'already_settled', sendId: send.id, noteQueued: false };

    const order = await trx
      .selectFrom('orders')
      .select(['id', 'account_id', 'email'])
      .where('id', '=', send.order_id)
      .executeTakeFirstOrThrow();
    // The sender hears of their gift's bounce, unless the address that bounced is their own (a gift
    // to themselves, or a note to them): the merchant sees it on the order either way. A spam
    // complaint is no bounce: the message arrived (and may have been watched), so telling the sender
    // "it never arrived" would be false; the send still counts as failed, so no resend goes there.
    const senderOwnAddress =
      send.kind !== 'recipient_video' || (send.destination ?? '').toLowerCase() === order.email.toLowerCase();
    const noteQueued =
      !senderOwnAddress &&
      event.kind !== 'complaint' &&
      (await queueSend(trx, order, { kind: 'sender_bounce_note', channel: 'email', dueAt: now }, now));
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
            // Whether the sender was e-mailed about it (a second bounce's note, or a complaint, is not).
            sender_told: noteQueued,
          },
        },
      ],
      now,
    );
    logger.info(
      { provider: event.provider, orderId: order.id, sendId: send.id, kind: event.kind },
      'an e-mail bounced after it was sent',
    );
    return { outcome: 'send_failed', sendId: send.id, noteQueued };
  }
}
