import { findStoreBranding, type StoreBranding } from '../accounts/store-branding.ts';
import type { Db } from '../db/database.ts';
import { isDependencyUnavailable } from '../db/unavailable.ts';
import { ConflictError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { recordTimeline } from '../orders/timeline.ts';
import { playbackUrl, type OrderRow } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import type { EmailChannel } from './email.ts';
import { PermanentSendError } from './errors.ts';
import type { Channel, EventSource, SendKind } from '../vocabulary.ts';
import {
  DEFAULT_SEND_TIMING,
  DEFAULT_SMTP_MAX_CONNECTIONS,
  MAX_SEND_ATTEMPTS,
  OTHERS_HELD_FOR_INTAKE_AT_MOST_MS,
  recipientDestination,
  resendPlan,
  retryDelayMs,
  type SendTiming,
} from './send-policy.ts';
import {
  claimDueSends,
  markSendSent,
  moveSend,
  queueSend,
  recipientVideoSendsQuery,
  startSending,
  unrecordedSentVideos,
  type SendRow,
} from './sends.ts';
import type { SmsChannel } from './sms.ts';
import type { MessageTemplates } from './messages/message-templates.ts';
import { emailTemplateFor, templateValues, thanksValues, type ThanksMessage } from './messages/templates.ts';
import { NOT_WATCHED_REASONS } from './not-watched.ts';
import { eachWithConcurrency } from './each-with-concurrency.ts';

/** How long a message the provider accepted waits for an unavailable database to record it as sent. */
const RECORD_SENT_PATIENCE_MS = 60_000;

interface MessageLooks {
  /** The store's name, logo and language (its words for the message). */
  store: StoreBranding;
  hasPoster: boolean;
}

/** What the dispatcher did with one message attempt. */
export type SendOutcome = 'sent' | 'retry' | 'failed';

/** Told of every attempt's outcome, and of each recipient video's delivery-to-sent lag (the operators' metrics). */
export interface SendObserver {
  send(attempt: { channel: Channel; kind: SendKind; outcome: SendOutcome }): void;
  recipientVideoSent(channel: Channel, deliveredAt: Date | null, sentAt: Date): void;
}

export interface SendDispatcherDeps {
  db: Db;
  orders: OrderService;
  email: EmailChannel;
  sms: SmsChannel;
  /** The wording, compiled at start (`compileMessageTemplates`). */
  templates: MessageTemplates;
  publicUrl: string;
  logger: Logger;
  now?: () => Date;
  observer?: SendObserver;
  /** Whether the order's video has a poster frame (the videos module's); the e-mail then shows it. */
  hasPoster?: (orderId: string) => Promise<boolean>;
  /**
   * The recipient's thank-you reply as the sender's e-mail shows it (the thanks module's). Read after
   * the send moved to `sending`, so the reply is final by then (a replacement waits for that move).
   */
  thanksMessage?: (orderId: string) => Promise<ThanksMessage | null>;
  /** The sender's thank-you e-mail was accepted: the thanks module marks its reply sent, in this transaction. */
  thanksSent?: (trx: Db, orderId: string, at: Date) => Promise<void>;
  /** Recovery timeouts and the first backoff step; default DEFAULT_SEND_TIMING. */
  timing?: SendTiming;
  /**
   * How many claimed messages are in the providers' hands at once (SMTP_MAX_CONNECTIONS, the e-mail
   * pool's size); default DEFAULT_SMTP_MAX_CONNECTIONS.
   */
  concurrency?: number;
  /**
   * Whether an e-mail provider's event webhook is on (docs/notifications.md "Bounces"): its events
   * can still tell an uncertain e-mail's fate, so the merchant is alerted only after
   * UNCERTAIN_EVENT_WAIT_MS. Without one nobody can tell, and the merchant is alerted at once.
   */
  emailEventsOn?: boolean;
  /** A send was queued again (an uncertain one the provider never got): dispatch now rather than on the next tick. */
  onMessagesQueued?: () => void;
}

/**
 * How long after its provider call an uncertain e-mail waits for the provider's events (they come
 * within seconds to minutes: SendGrid's `processed`, SES's `Delivery`, Postmark's `Delivery`)
 * before the merchant is alerted.
 */
export const UNCERTAIN_EVENT_WAIT_MS = 20 * 60_000;

/** Twilio's clock and ours may differ a little: the window searched around our call is widened by this much. */
const PROVIDER_CLOCK_SKEW_MS = 2 * 60_000;

/**
 * Delivers queued messages exactly once. Each message moves pending → claimed → sending → sent,
 * every step a conditional update in PostgreSQL:
 * - `claimed` is taken before anything else, so two dispatchers never hold one message;
 * - `sending` is committed immediately before the provider call, so after a crash we know whether
 *   the provider may have been called: `claimed` leftovers are safely retried, `sending` leftovers
 *   become `uncertain` and are never re-sent blindly (the merchant can resend after checking).
 */
export class SendDispatcher {
  private readonly now: () => Date;
  private readonly timing: SendTiming;
  /** How many claimed messages are delivered at once. */
  readonly concurrency: number;

  /**
   * Messages this dispatcher claimed when the database went away (the claim answered, a later step
   * did not). They go back to `pending` on the first run after it answers again, seconds later,
   * rather than when the reconciler finds the claim older than SEND_CLAIM_TIMEOUT_MS (about three
   * minutes on the defaults). Only a message still `claimed` under this claim's token moves, so one
   * that reached `sending` (or was sent) is never touched; if this process stops first, the
   * reconciler still returns them.
   */
  private readonly claimsToGiveBack = new Map<string, SendRow>();

  constructor(private readonly deps: SendDispatcherDeps) {
    this.now = deps.now ?? (() => new Date());
    this.timing = deps.timing ?? DEFAULT_SEND_TIMING;
    this.concurrency = Math.max(1, deps.concurrency ?? DEFAULT_SMTP_MAX_CONNECTIONS);
  }

  /**
   * Sends what is due, up to `limit` messages; returns how many were attempted. They are delivered
   * `concurrency` at a time, started in the claim's order (the recipients' videos first). Each
   * message's own steps stay one after the other, so every guarantee of `deliver` holds per message;
   * two messages of one order meet only at the order's row lock, as they would in two processes.
   * `holdOthers`: webhook intake is pressed, so the other kinds wait a little (`claim`).
   */
  async dispatchDue(limit = 25, options: { holdOthers?: boolean } = {}): Promise<number> {
    await this.giveBackClaims();
    const claimed = await this.claim(limit, options.holdOthers ?? false);
    try {
      await eachWithConcurrency(claimed, this.concurrency, (send) => this.deliver(send));
    } catch (error) {
      // Every lane has stopped: the claim's messages that did not get to `sending` are still ours.
      if (isDependencyUnavailable(error)) for (const send of claimed) this.claimsToGiveBack.set(send.id, send);
      throw error;
    }
    return claimed.length;
  }

  /**
   * Every kind due now; or, with `holdOthers` (webhook intake is pressed), the recipients' videos due
   * now and the other kinds only once held OTHERS_HELD_FOR_INTAKE_AT_MOST_MS past their due time.
   * Two index ranges rather than one claim with an OR, which would filter every held message on
   * each claim.
   */
  private async claim(limit: number, holdOthers: boolean): Promise<SendRow[]> {
    const now = this.now();
    if (!holdOthers) return claimDueSends(this.deps.db, limit, now);
    const videos = await claimDueSends(this.deps.db, limit, now, { only: 'recipient_videos' });
    if (videos.length === limit) return videos;
    const dueBy = new Date(now.getTime() - OTHERS_HELD_FOR_INTAKE_AT_MOST_MS);
    return [...videos, ...(await claimDueSends(this.deps.db, limit - videos.length, now, { dueBy }))];
  }

  private async giveBackClaims(): Promise<void> {
    let givenBack = 0;
    for (const [id, send] of this.claimsToGiveBack) {
      if (await moveSend(this.deps.db, send, 'claimed', { status: 'pending', claim_token: null }, this.now()))
        givenBack++;
      this.claimsToGiveBack.delete(id);
    }
    if (givenBack > 0)
      this.deps.logger.info({ givenBack }, 'the database is back; messages claimed before it went away are due again');
  }

  private async deliver(send: SendRow): Promise<void> {
    const { db } = this.deps;
    // Read before the send is marked `sending`: once it is, a failure can only be the provider's, and a
    // database outage here must leave the send claimed (returned by the reconciler), not uncertain.
    const looks = await this.messageLooks(send);
    const start = await startSending(
      db,
      send,
      (order) => destinationOf(order, send.kind, send.channel),
      this.now(),
      // Decided three days after sending; the recipient may watch between that decision and now.
      (order) =>
        send.kind === 'sender_not_watched_note' && order.viewed_at !== null ? NOT_WATCHED_REASONS.withdrawn : null,
    );
    if (start.kind === 'no_destination') {
      await this.fail(
        send,
        start.order,
        'claimed',
        `The order has no ${destinationField(send.kind, send.channel)} to send to.`,
      );
      return;
    }
    if (start.kind !== 'started') return;
    const { order, destination } = start;

    let providerMessageId: string;
    try {
      providerMessageId = await this.callProvider(send, order, destination, looks);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof PermanentSendError || send.attempts >= MAX_SEND_ATTEMPTS) {
        await this.fail(
          send,
          order,
          'sending',
          error instanceof PermanentSendError ? reason : `Gave up after ${send.attempts} attempts: ${reason}`,
        );
        return;
      }
      const retryAt = new Date(this.now().getTime() + retryDelayMs(send.attempts, this.timing.retryFirstDelayMs));
      this.deps.logger.warn(
        { sendId: send.id, channel: send.channel, attempt: send.attempts, retryAt, err: error },
        'send failed; will retry',
      );
      await moveSend(db, send, 'sending', { status: 'pending', due_at: retryAt, last_error: reason }, this.now());
      this.deps.observer?.send({ channel: send.channel, kind: send.kind, outcome: 'retry' });
      await recordTimeline(
        db,
        order,
        'system',
        [
          {
            type: 'send.retry_scheduled',
            data: {
              kind: send.kind,
              channel: send.channel,
              attempt: send.attempts,
              retry_at: retryAt.toISOString(),
              reason,
            },
          },
        ],
        this.now(),
      );
      return;
    }
    await this.recordSent(send, order, providerMessageId, this.now());
  }

  /** What a message shows besides the order: the store's branding and language, and the video's poster. */
  private async messageLooks(send: SendRow): Promise<MessageLooks> {
    const [store, hasPoster] = await Promise.all([
      findStoreBranding(this.deps.db, send.account_id),
      send.kind === 'recipient_video' ? (this.deps.hasPoster?.(send.order_id) ?? false) : false,
    ]);
    return { store, hasPoster };
  }

  private async callProvider(
    send: SendRow,
    order: OrderRow,
    destination: string,
    looks: MessageLooks,
  ): Promise<string> {
    let values = templateValues(order, this.deps.publicUrl, looks.store, looks.hasPoster);
    const { templates } = this.deps;
    const kind = send.kind;
    if (kind === 'sender_thanks') {
      const thanks = await this.deps.thanksMessage?.(order.id);
      // Erased since it was queued: there is nothing left to tell the sender.
      if (!thanks) throw new PermanentSendError('The thank-you reply no longer exists.');
      values = { ...values, ...thanksValues(thanks) };
    }
    if (send.channel === 'sms') {
      return (
        await this.deps.sms.send({
          to: destination,
          body: templates.sms(kind, values, looks.store.locale),
          reference: send.id,
        })
      ).providerMessageId;
    }
    const content = templates.email(emailTemplateFor(kind, order), values, looks.store.locale, looks.store.brand);
    return (
      await this.deps.email.send({
        to: destination,
        ...content,
        messageId: `<${send.id}@doorstep>`,
        // From the store, by name; replies go to the store's contact address, not to a no-reply.
        fromName: looks.store.name,
        ...(looks.store.contactEmail ? { replyTo: looks.store.contactEmail } : {}),
      })
    ).providerMessageId;
  }

  /**
   * The provider accepted. The send row says so, then the order records the recipient's video
   * (`sent_at`, timeline), whose `order.sent` event queues the sender's note; a note to the sender
   * is only the send row and a timeline line.
   */
  private async recordSent(send: SendRow, order: OrderRow, providerMessageId: string, sentAt: Date): Promise<void> {
    const { db, orders, logger } = this.deps;
    // The provider has the message: a database that is down for a moment (a restart) must not
    // turn that into `uncertain` five minutes later, so these writes wait for it to come back.
    if (send.kind === 'recipient_video') {
      // The row says "sent" first, in notifications' own table: from here on nothing can send it
      // again (resend and the stuck-send reconciler look at it). Should the process stop before the
      // order records it, `reconcile` repairs the order from the row.
      await this.whileDatabaseReturns(() => markSendSent(db, send.id, { providerMessageId, at: sentAt }));
      await this.whileDatabaseReturns(() =>
        orders.markSent(order.id, { sendId: send.id, channel: send.channel, providerMessageId, at: sentAt }),
      );
    } else {
      await this.whileDatabaseReturns(() =>
        db.transaction().execute(async (trx) => {
          await markSendSent(trx, send.id, { providerMessageId, at: sentAt });
          if (send.kind === 'sender_thanks') {
            await this.deps.thanksSent?.(trx, order.id, sentAt);
            await recordTimeline(trx, order, 'system', [{ type: 'thanks.sent', data: {} }], sentAt);
          } else await recordTimeline(trx, order, 'system', [{ type: 'note.sent', data: { kind: send.kind } }], sentAt);
        }),
      );
    }
    logger.info({ orderId: order.id, sendId: send.id, kind: send.kind, channel: send.channel }, 'message sent');
    this.deps.observer?.send({ channel: send.channel, kind: send.kind, outcome: 'sent' });
    if (send.kind === 'recipient_video')
      this.deps.observer?.recipientVideoSent(send.channel, order.delivered_at, sentAt);
  }

  /**
   * Runs `write` again while the database is unavailable (backoff 250 ms doubling to 5 s), for up
   * to RECORD_SENT_PATIENCE_MS; then the error stands and the reconcilers take over.
   */
  private async whileDatabaseReturns<T>(write: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + RECORD_SENT_PATIENCE_MS;
    for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        return await write();
      } catch (error) {
        if (!isDependencyUnavailable(error) || Date.now() + delay > deadline) throw error;
        this.deps.logger.warn(
          { err: error, retryInMs: delay },
          'the database is unavailable; recording a sent message again',
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async fail(
    send: SendRow,
    order: Pick<OrderRow, 'id' | 'account_id'>,
    from: 'claimed' | 'sending',
    reason: string,
  ): Promise<void> {
    const now = this.now();
    await moveSend(this.deps.db, send, from, { status: 'failed', last_error: reason }, now);
    this.deps.observer?.send({ channel: send.channel, kind: send.kind, outcome: 'failed' });
    await recordTimeline(
      this.deps.db,
      order,
      'system',
      [{ type: 'send.failed', data: { kind: send.kind, channel: send.channel, reason } }],
      now,
    );
    this.deps.logger.warn({ orderId: order.id, sendId: send.id, reason }, 'send failed for good');
  }

  /** Reconciler step (see `reconcileStuck`), logged when it found anything. */
  async reconcile(): Promise<void> {
    const stuck = await this.reconcileStuck();
    if (stuck.released + stuck.uncertain > 0) this.deps.logger.warn(stuck, 'reconciled sends interrupted by a crash');
    const resolved = await this.resolveUncertain();
    if (resolved.sent + resolved.resent + resolved.alerted > 0)
      this.deps.logger.warn(resolved, 'resolved uncertain sends');
    const repaired = await this.recordUnrecordedSends();
    if (repaired > 0)
      this.deps.logger.warn({ repaired }, 'recorded sent videos on orders that had missed it after a crash');
  }

  /**
   * A recipient's video the provider accepted (row `sent`) whose order never recorded it — the
   * process stopped between the two writes — is recorded now: `sent_at`, the timeline, the sender's
   * note all follow from `markSent` as they would have.
   */
  async recordUnrecordedSends(): Promise<number> {
    // Sends of the last minute are left alone: their dispatcher is recording them right now.
    const unrecorded = await unrecordedSentVideos(this.deps.db, new Date(this.now().getTime() - 60_000));
    for (const send of unrecorded) {
      await this.deps.orders.markSent(send.order_id, {
        sendId: send.id,
        channel: send.channel,
        providerMessageId: send.provider_message_id ?? '',
        at: send.sent_at ?? this.now(),
      });
    }
    return unrecorded.length;
  }

  /**
   * Crash recovery, run by the reconciler: a claim that never reached `sending` goes back to
   * pending (no provider was called; timeline `send.requeued`); one stuck in `sending` becomes
   * `uncertain`, with a reason on the timeline, and is not retried automatically.
   */
  async reconcileStuck(): Promise<{ released: number; uncertain: number }> {
    const { db } = this.deps;
    const now = this.now();
    const released = await db
      .updateTable('sends')
      .set({ status: 'pending', claim_token: null, updated_at: now })
      .where('status', '=', 'claimed')
      .where('claimed_at', '<', new Date(now.getTime() - this.timing.claimTimeoutMs))
      .returning(['order_id', 'account_id', 'kind', 'channel'])
      .execute();
    // Said on the timeline, so a merchant who wonders why a send took minutes sees the crash and the retry.
    for (const send of released)
      await this.recoveryNote(
        send,
        'send.requeued',
        'The sending process stopped before handing the message to the provider, so nothing went out; it is sent again.',
        now,
      );
    const stuck = await db
      .updateTable('sends')
      .set({
        status: 'uncertain',
        last_error: 'the process stopped during the provider call; outcome unknown',
        updated_at: now,
      })
      .where('status', '=', 'sending')
      .where('claimed_at', '<', new Date(now.getTime() - this.timing.sendingTimeoutMs))
      .returningAll()
      .execute();
    for (const send of stuck)
      await this.recoveryNote(
        send,
        'send.uncertain',
        'The sending process stopped while handing the message to the provider, so it may or may not have gone out. The provider is asked; it is re-sent only if the provider says it never got it, and otherwise the merchant is asked to check.',
        now,
      );
    return { released: released.length, uncertain: stuck.length };
  }

  /**
   * Uncertain sends (see `reconcileStuck`), settled where the provider can say (issue 31, item 9):
   * - SMS: Twilio's Message list (`SmsChannel.lookup`). Our message there → `sent`, never again;
   *   no message at all to that number while our call was open → it never got it: queued once more.
   * - E-mail: the provider's events for our Message-ID settle it as they arrive (`EmailEvents`);
   *   SMTP has no way to ask, so here an e-mail only waits for them (UNCERTAIN_EVENT_WAIT_MS).
   * Whatever no provider can tell is never guessed at: the merchant is alerted once (`attention_at`,
   * the admin's "needs attention" with its Resend, and one e-mail to the store's contact address).
   */
  async resolveUncertain(limit = 50): Promise<{ sent: number; resent: number; alerted: number }> {
    const { db, logger } = this.deps;
    const counts = { sent: 0, resent: 0, alerted: 0 };
    const uncertain = await db
      .selectFrom('sends')
      .selectAll()
      .where('status', '=', 'uncertain')
      .where('attention_at', 'is', null)
      .orderBy('claimed_at')
      .limit(limit)
      .execute();
    for (const send of uncertain) {
      const now = this.now();
      const calledAt = send.claimed_at ?? send.updated_at;
      try {
        const answer = await this.askProvider(send, calledAt);
        if (answer.kind === 'found') {
          if (await this.resolveAsSent(send, answer.providerMessageId, answer.reason, calledAt)) counts.sent++;
          continue;
        }
        if (answer.kind === 'absent') {
          if (await this.resolveAsNeverSent(send, answer.reason, now)) counts.resent++;
          continue;
        }
        // The provider may still tell (its events, or its API once it answers again): wait, then alert.
        if (answer.mayTellLater && now.getTime() - calledAt.getTime() < UNCERTAIN_EVENT_WAIT_MS) continue;
        if (await this.alertMerchant(send, answer.reason, now)) counts.alerted++;
      } catch (error) {
        logger.warn(
          { err: error, sendId: send.id },
          'could not resolve an uncertain send; tried again on the next run',
        );
      }
    }
    return counts;
  }

  private async askProvider(
    send: SendRow,
    calledAt: Date,
  ): Promise<
    | { kind: 'found'; providerMessageId: string; reason: string }
    | { kind: 'absent'; reason: string }
    | { kind: 'unknown'; reason: string; mayTellLater: boolean }
  > {
    if (send.channel === 'email')
      return this.deps.emailEventsOn
        ? {
            kind: 'unknown',
            reason: 'The e-mail provider reported nothing about the message, and SMTP has no way to ask it.',
            mayTellLater: true,
          }
        : {
            kind: 'unknown',
            reason: 'The e-mail provider cannot be asked (SMTP has no way to, and no event webhook is set up).',
            mayTellLater: false,
          };
    const lookup = this.deps.sms.lookup;
    if (!lookup || !send.destination)
      return { kind: 'unknown', reason: 'The SMS provider cannot be asked about its messages.', mayTellLater: false };
    let answer;
    try {
      answer = await lookup({
        to: send.destination,
        createdAfter: new Date(calledAt.getTime() - PROVIDER_CLOCK_SKEW_MS),
        createdBefore: new Date(calledAt.getTime() + this.timing.sendingTimeoutMs + PROVIDER_CLOCK_SKEW_MS),
        marker: await this.smsMarker(send),
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, sendId: send.id }, 'the SMS provider did not answer about an uncertain send');
      return {
        kind: 'unknown',
        reason: 'The SMS provider did not answer when asked about the message.',
        mayTellLater: true,
      };
    }
    if (answer.kind === 'found')
      return {
        kind: 'found',
        providerMessageId: answer.providerMessageId,
        reason: `The SMS provider has the message (its status: ${answer.status}), so it went out; it is not sent again.`,
      };
    if (answer.kind === 'absent')
      return {
        kind: 'absent',
        reason:
          'The SMS provider has no message to that number from the moment sending stopped, so it never went out; it is sent again once.',
      };
    return { kind: 'unknown', reason: `The SMS provider cannot tell: ${answer.why}.`, mayTellLater: false };
  }

  /** What only our SMS carries: the recipient's playback link (the notes to the sender carry none of their own). */
  private async smsMarker(send: SendRow): Promise<string | null> {
    if (send.kind !== 'recipient_video') return null;
    const order = await this.deps.db
      .selectFrom('orders')
      .select(['uuid'])
      .where('id', '=', send.order_id)
      .executeTakeFirst();
    return order ? playbackUrl(this.deps.publicUrl, order.uuid) : null;
  }

  /** The provider has it: `sent`, as if the call had answered (the order records a recipient's video). */
  private async resolveAsSent(
    send: SendRow,
    providerMessageId: string,
    reason: string,
    sentAt: Date,
  ): Promise<boolean> {
    const moved = await this.moveUncertain(
      send,
      'sent',
      { status: 'sent', sent_at: sentAt, provider_message_id: providerMessageId, last_error: null },
      reason,
      async (trx) => {
        if (send.kind === 'sender_thanks') await this.deps.thanksSent?.(trx, send.order_id, sentAt);
      },
    );
    if (moved && send.kind === 'recipient_video')
      await this.deps.orders.markSent(send.order_id, {
        sendId: send.id,
        channel: send.channel,
        providerMessageId,
        at: sentAt,
      });
    return moved;
  }

  /** The provider never got it: the same send is queued again, once (it is `pending`, no longer uncertain). */
  private async resolveAsNeverSent(send: SendRow, reason: string, now: Date): Promise<boolean> {
    const moved = await this.moveUncertain(
      send,
      'resent',
      { status: 'pending', due_at: now, claim_token: null, last_error: reason },
      reason,
    );
    if (moved) this.deps.onMessagesQueued?.();
    return moved;
  }

  /**
   * Moves an uncertain send once (moveSend: a concurrent run finds it moved and does nothing), with
   * its `send.resolved` entry and whatever else belongs in the same transaction.
   */
  private moveUncertain(
    send: SendRow,
    outcome: 'sent' | 'resent',
    changes: Parameters<typeof moveSend>[3],
    reason: string,
    alongside?: (trx: Db) => Promise<void>,
  ): Promise<boolean> {
    const now = this.now();
    return this.deps.db.transaction().execute(async (trx) => {
      if (!(await moveSend(trx, send, 'uncertain', changes, now))) return false;
      await recordTimeline(
        trx,
        { id: send.order_id, account_id: send.account_id },
        'system',
        [{ type: 'send.resolved', data: { kind: send.kind, channel: send.channel, outcome, reason } }],
        now,
      );
      await alongside?.(trx);
      return true;
    });
  }

  /**
   * Nobody can tell: the merchant is asked, once. `attention_at` is claimed with the timeline entry,
   * then the store owner is e-mailed (the store's contact address) — at most once per send, even if
   * this process stops in between. The admin lists the order as "needs attention" with its Resend.
   */
  private async alertMerchant(send: SendRow, reason: string, now: Date): Promise<boolean> {
    const { db, logger } = this.deps;
    const store = await findStoreBranding(db, send.account_id);
    const owner = store.contactEmail;
    const claimed = await db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('sends')
        .set({ attention_at: now, last_error: reason, updated_at: now })
        .where('id', '=', send.id)
        .where('status', '=', 'uncertain')
        .where('attention_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await recordTimeline(
        trx,
        { id: send.order_id, account_id: send.account_id },
        'system',
        [
          {
            type: 'send.attention',
            data: { kind: send.kind, channel: send.channel, reason, owner_emailed: owner !== null },
          },
        ],
        now,
      );
      return true;
    });
    if (!claimed || !owner) return claimed;
    try {
      await this.deps.email.send({
        to: owner,
        ...uncertainAlertMessage({
          storeName: store.name,
          orderId: send.order_id,
          channel: send.channel,
          reason,
          kind: send.kind,
        }),
        messageId: `<attention-${send.id}@doorstep>`,
      });
    } catch (error) {
      // Ids only: the owner's address is personal data. The admin still shows the order.
      logger.warn(
        { err: error, sendId: send.id, orderId: send.order_id },
        'could not e-mail the store owner about an uncertain send',
      );
    }
    return true;
  }

  /** What crash recovery did to one send, on its order's timeline. */
  private async recoveryNote(
    send: Pick<SendRow, 'order_id' | 'account_id' | 'kind' | 'channel'>,
    type: 'send.requeued' | 'send.uncertain',
    reason: string,
    now: Date,
  ): Promise<void> {
    await recordTimeline(
      this.deps.db,
      { id: send.order_id, account_id: send.account_id },
      'system',
      [{ type, data: { kind: send.kind, channel: send.channel, reason } }],
      now,
    );
  }

  /**
   * POST /v1/orders/{id}/resend (and the admin's Resend): after a failed or uncertain send, or once
   * the recipient's e-mail or phone was corrected after the video went to the old one. The decision
   * is `resendPlan`: never twice to the same address, never while a send is in flight. A video that
   * reached an old address stays on record as `replaced`. `source` is who asked.
   */
  async resend(accountId: string, orderId: string, source: EventSource = 'api'): Promise<OrderRow> {
    const { db } = this.deps;
    const order = await this.deps.orders.get(accountId, orderId);
    const now = this.now();
    const existing = await recipientVideoSendsQuery(db, order.id)
      .select(['channel', 'status', 'destination', 'bounced_at'])
      .execute();
    const plan = resendPlan(order, existing, now);
    if ('refused' in plan) throw new ConflictError(plan.refused);
    await db.transaction().execute(async (trx) => {
      const superseded = (status: 'uncertain' | 'sent') =>
        trx
          .updateTable('sends')
          .where('order_id', '=', order.id)
          .where('kind', '=', 'recipient_video')
          .where('channel', 'in', plan.channels)
          .where('status', '=', status);
      await superseded('uncertain')
        .set({ status: 'failed', last_error: 'superseded by a resend', attention_at: null, updated_at: now })
        .execute();
      await superseded('sent').set({ status: 'replaced', updated_at: now }).execute();
      for (const channel of plan.channels)
        await queueSend(trx, order, { kind: 'recipient_video', channel, dueAt: now }, now);
      await recordTimeline(trx, order, source, [{ type: 'send.resend_requested', data: {} }], now);
    });
    return this.deps.orders.get(accountId, orderId);
  }
}

/** The recipient's video goes to the recipient; every note goes to the sender (by SMS only the not-watched note). */
function destinationOf(order: OrderRow, kind: SendKind, channel: Channel): string | null {
  if (kind === 'recipient_video') return recipientDestination(order, channel);
  return channel === 'sms' ? order.sender_phone : order.email;
}

/**
 * The store owner's e-mail about a send nobody can vouch for: which order and channel, why, and what
 * to do — no recipient's address or phone (the admin shows those to the merchant signed in).
 */
function uncertainAlertMessage(alert: {
  storeName: string;
  orderId: string;
  channel: Channel;
  kind: SendKind;
  reason: string;
}): { subject: string; text: string; html: string } {
  const what = alert.kind === 'recipient_video' ? 'the gift video' : 'a message about the gift';
  const by = alert.channel === 'sms' ? 'SMS' : 'e-mail';
  const subject = `Please check order ${alert.orderId}: ${what} may not have been sent`;
  const lines = [
    `Hello ${alert.storeName},`,
    '',
    `Doorstep stopped while sending ${what} for order ${alert.orderId} by ${by}, and cannot tell whether it went out.`,
    alert.reason,
    '',
    'Open the Doorstep app in your Shopify admin: the order is under "Needs attention". If the recipient did not get it, press Resend; it is sent once.',
  ];
  const escape = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return {
    subject,
    text: lines.join('\n'),
    html: lines.map((line) => (line ? `<p>${escape(line)}</p>` : '')).join(''),
  };
}

function destinationField(kind: SendKind, channel: Channel): string {
  if (kind === 'recipient_video') return channel === 'sms' ? 'recipient_phone' : 'recipient_email';
  return channel === 'sms' ? 'sender_phone' : 'email';
}
