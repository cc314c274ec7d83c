import type { Db } from '../db/database.ts';
import { ConflictError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { recordEvents } from '../orders/events.ts';
import type { OrderRow } from '../orders/serializer.ts';
import type { OrderService } from '../orders/service.ts';
import type { EmailChannel } from './email.ts';
import { PermanentSendError } from './errors.ts';
import { CLAIM_TIMEOUT_MS, MAX_SEND_ATTEMPTS, SENDING_TIMEOUT_MS, channelsFor, recipientSendPlan, retryDelayMs, type SendKind } from './send-policy.ts';
import { claimDueSends, moveSend, queueSend, type SendRow } from './sends.ts';
import type { SmsChannel } from './sms.ts';
import { renderEmail, renderSms, templateValues } from './templates.ts';

export interface SendDispatcherDeps {
  db: Db;
  orders: OrderService;
  email: EmailChannel;
  sms: SmsChannel;
  publicUrl: string;
  logger: Logger;
  now?: () => Date;
}

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

  constructor(private readonly deps: SendDispatcherDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Sends what is due, up to `limit` messages; returns how many were attempted. */
  async dispatchDue(limit = 25): Promise<number> {
    const claimed = await claimDueSends(this.deps.db, limit, this.now());
    for (const send of claimed) await this.deliver(send);
    return claimed.length;
  }

  private async deliver(send: SendRow): Promise<void> {
    const { db } = this.deps;
    const order = await db.selectFrom('orders').selectAll().where('id', '=', send.order_id).executeTakeFirst();
    if (!order || order.status === 'cancelled' || order.deleted_at !== null) {
      await moveSend(db, send, 'claimed', { status: 'cancelled', last_error: 'order cancelled or deleted' }, this.now());
      return;
    }
    const destination = destinationOf(order, send.kind as SendKind, send.channel);
    if (!destination) {
      await this.fail(send, order, 'claimed', `The order has no ${send.channel === 'sms' ? 'recipient_phone' : 'recipient_email'} to send to.`);
      return;
    }
    // `claimed_at` restarts here: the reconciler's "stuck in sending" clock starts at the provider call.
    if (!(await moveSend(db, send, 'claimed', { status: 'sending', destination, claimed_at: this.now() }, this.now()))) return;

    let providerMessageId: string;
    try {
      providerMessageId = await this.callProvider(send, order, destination);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof PermanentSendError || send.attempts >= MAX_SEND_ATTEMPTS) {
        await this.fail(send, order, 'sending', error instanceof PermanentSendError ? reason : `Gave up after ${send.attempts} attempts: ${reason}`);
        return;
      }
      const retryAt = new Date(this.now().getTime() + retryDelayMs(send.attempts));
      this.deps.logger.warn({ sendId: send.id, channel: send.channel, attempt: send.attempts, retryAt, err: error }, 'send failed; will retry');
      await moveSend(db, send, 'sending', { status: 'pending', due_at: retryAt, last_error: reason }, this.now());
      await recordEvents(db, order, 'system', [{ type: 'send.retry_scheduled', data: { kind: send.kind, channel: send.channel, attempt: send.attempts, retry_at: retryAt.toISOString(), reason } }], this.now());
      return;
    }
    await this.recordSent(send, order, providerMessageId, this.now());
  }

  private async callProvider(send: SendRow, order: OrderRow, destination: string): Promise<string> {
    const values = templateValues(order, this.deps.publicUrl);
    const kind = send.kind as SendKind;
    if (send.channel === 'sms') {
      return (await this.deps.sms.send({ to: destination, body: renderSms(kind, values), reference: send.id })).providerMessageId;
    }
    const content = renderEmail(kind, values);
    return (await this.deps.email.send({ to: destination, ...content, messageId: `<${send.id}@doorstep>` })).providerMessageId;
  }

  /**
   * The provider accepted: the send becomes `sent` in the same transaction that sets the order's
   * `sent_at` and queues the sender's note. `uncertain` is accepted too — a slow provider call the
   * reconciler gave up on that did succeed after all.
   */
  private async recordSent(send: SendRow, order: OrderRow, providerMessageId: string, sentAt: Date): Promise<void> {
    const { db, orders, logger } = this.deps;
    const markRow = async (trx: Db) => {
      await trx
        .updateTable('sends')
        .set({ status: 'sent', sent_at: sentAt, provider_message_id: providerMessageId, last_error: null, updated_at: sentAt })
        .where('id', '=', send.id)
        .where('status', 'in', ['sending', 'uncertain'])
        .execute();
    };
    if (send.kind === 'recipient_video') {
      await orders.markSent(order.id, { channel: send.channel, at: sentAt }, async (trx) => {
        await markRow(trx);
        await queueSend(trx, order, { kind: 'sender_sent_note', channel: 'email', dueAt: sentAt }, sentAt);
      });
    } else {
      await db.transaction().execute(async (trx) => {
        await markRow(trx);
        await recordEvents(trx, order, 'system', [{ type: 'note.sent', data: { kind: send.kind } }], sentAt);
      });
    }
    logger.info({ orderId: order.id, sendId: send.id, kind: send.kind, channel: send.channel }, 'message sent');
  }

  private async fail(send: SendRow, order: OrderRow, from: 'claimed' | 'sending', reason: string): Promise<void> {
    const now = this.now();
    await moveSend(this.deps.db, send, from, { status: 'failed', last_error: reason }, now);
    await recordEvents(this.deps.db, order, 'system', [{ type: 'send.failed', data: { kind: send.kind, channel: send.channel, reason } }], now);
    this.deps.logger.warn({ orderId: order.id, sendId: send.id, reason }, 'send failed for good');
  }

  /**
   * Crash recovery, run by the reconciler: a claim that never reached `sending` goes back to
   * pending (no provider was called); one stuck in `sending` becomes `uncertain`, with a reason on
   * the timeline, and is not retried automatically.
   */
  async reconcileStuck(): Promise<{ released: number; uncertain: number }> {
    const { db } = this.deps;
    const now = this.now();
    const released = await db
      .updateTable('sends')
      .set({ status: 'pending', claim_token: null, updated_at: now })
      .where('status', '=', 'claimed')
      .where('claimed_at', '<', new Date(now.getTime() - CLAIM_TIMEOUT_MS))
      .executeTakeFirst();
    const stuck = await db
      .updateTable('sends')
      .set({ status: 'uncertain', last_error: 'the process stopped during the provider call; outcome unknown', updated_at: now })
      .where('status', '=', 'sending')
      .where('claimed_at', '<', new Date(now.getTime() - SENDING_TIMEOUT_MS))
      .returningAll()
      .execute();
    for (const send of stuck) {
      await recordEvents(db, { id: send.order_id, account_id: send.account_id }, 'system', [
        {
          type: 'send.uncertain',
          data: {
            kind: send.kind,
            channel: send.channel,
            reason: 'The sending process stopped while handing the message to the provider, so it may or may not have gone out. It is not re-sent automatically; use resend if the recipient did not get it.',
          },
        },
      ], now);
    }
    return { released: Number(released.numUpdatedRows), uncertain: stuck.length };
  }

  /**
   * POST /v1/orders/{id}/resend: after a failed (or uncertain) send, typically once the recipient's
   * details are corrected. A message already sent or in flight is not sent again.
   */
  async resend(accountId: string, orderId: string): Promise<OrderRow> {
    const { db } = this.deps;
    const order = await this.deps.orders.get(accountId, orderId);
    const now = this.now();
    const plan = recipientSendPlan(order, now);
    if ('waiting' in plan) throw new ConflictError(`Nothing to resend yet: ${plan.waiting}.`);
    const existing = await db.selectFrom('sends').selectAll().where('order_id', '=', order.id).where('kind', '=', 'recipient_video').execute();
    if (existing.some((s) => ['pending', 'claimed', 'sending'].includes(s.status))) throw new ConflictError('A send for this order is already in progress.');
    const unsent = channelsFor(order.send_method).filter((channel) => !existing.some((s) => s.channel === channel && s.status === 'sent'));
    if (unsent.length === 0) throw new ConflictError('The video was already sent to the recipient.');
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('sends').set({ status: 'failed', last_error: 'superseded by a resend', updated_at: now }).where('order_id', '=', order.id).where('kind', '=', 'recipient_video').where('status', '=', 'uncertain').execute();
      for (const channel of unsent) await queueSend(trx, order, { kind: 'recipient_video', channel, dueAt: now }, now);
      await recordEvents(trx, order, 'api', [{ type: 'send.resend_requested', data: {} }], now);
    });
    return this.deps.orders.get(accountId, orderId);
  }
}

function destinationOf(order: OrderRow, kind: SendKind, channel: string): string | null {
  if (kind !== 'recipient_video') return order.email;
  return channel === 'sms' ? order.recipient_phone : order.recipient_email;
}
