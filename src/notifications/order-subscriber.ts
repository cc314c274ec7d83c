import type { OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderEventType } from '../vocabulary.ts';
import { recordTimeline } from '../orders/timeline.ts';
import { scheduleNotWatchedCheck, withdrawNotWatchedNote } from './not-watched.ts';
import { forgetDestinations, markSendRecorded, planRecipientVideo, queueSend, stopSends } from './sends.ts';

/**
 * The reactions that can make a message due at once and are worth a dispatch right away; stopping
 * ones only withdraw. Not `order.created`: the sender's record link of a Shopify order is fine on
 * the one-second tick, and a webhook burst would otherwise ask for a dispatch per order while the
 * intake competes for the same database (the embedded PGlite has a single session).
 */
const QUEUES_MESSAGES: ReadonlySet<OrderEventType> = new Set([
  'order.updated',
  'order.delivered',
  'order.recorded',
  'order.sent',
  'order.viewed',
  'order.thanked',
]);

/**
 * The order fields the recipient's send plan reads (`recipientSendPlan`): an `order.updated` that
 * changes none of them (price, names, title, the sender's e-mail) cannot move or withdraw a message,
 * and message text is rendered when it is sent, so such an update is not handed to this subscriber.
 */
const SEND_PLAN_FIELDS: ReadonlySet<string> = new Set([
  'recipient_email',
  'recipient_phone',
  'send_method',
  'send_trigger',
  'send_on',
]);

/**
 * How notifications follow an order: the recipient's video is queued, moved or withdrawn as the
 * order changes; the sender gets the record link (Shopify orders), and a note when the video went out
 * and when it was first watched; a stopped order sends nothing more. Every `sends` row is written by
 * this module; this subscriber is the only way an order change reaches it.
 */
export function notificationsSubscriber(options: {
  now: () => Date;
  /**
   * Called after a reaction that may have made a message due now has committed: the dispatcher is
   * asked to run at once instead of at its next tick (which stays as the safety net).
   */
  onMessagesQueued?: () => void;
  /**
   * THANKS_SEND_DELAY_SECONDS in ms: the sender's thank-you e-mail waits this long after the first
   * reply, so the recipient can replace a hasty one (the e-mail says what the reply is when it goes).
   */
  thanksSendDelayMs?: number;
}): OrderEventSubscriber {
  return {
    name: 'notifications',
    events: [
      'order.created',
      'order.updated',
      'order.delivered',
      'order.recorded',
      'order.sent',
      'order.viewed',
      'order.thanked',
      'order.cancelled',
      'order.deleted',
      'order.erased',
    ],
    // The record link and the recipient's first plan commit with the order itself: a Shopify
    // orders/create burst then costs no outbox row, take and delete per order (issue 11).
    inline: ['order.created'],
    wants(event) {
      return event.type !== 'order.updated' || event.fields.some((field) => SEND_PLAN_FIELDS.has(field));
    },
    async handle(trx, order, delivered) {
      const now = options.now();
      const { event } = delivered;
      switch (event.type) {
        case 'order.created':
          // A Shopify shopper has not recorded yet: e-mail them the record link. API clients send
          // their own record_url to their customers.
          if (delivered.source === 'shopify')
            await queueSend(trx, order, { kind: 'sender_record_link', channel: 'email', dueAt: now }, now);
          // An order's first event: no recipient video send can exist yet (sends follow the events, in order).
          await planRecipientVideo(trx, order, { now, explainWaiting: false, noSendsYet: true });
          return;
        case 'order.updated':
        case 'order.recorded':
          await planRecipientVideo(trx, order, { now, explainWaiting: false });
          return;
        case 'order.delivered':
          await planRecipientVideo(trx, order, { now, explainWaiting: true });
          return;
        case 'order.sent':
          // The dispatcher marked its row sent before the order recorded it; now the order has.
          await markSendRecorded(trx, event.send_id);
          // The sender hears once.
          await queueSend(
            trx,
            order,
            { kind: 'sender_sent_note', channel: 'email', dueAt: new Date(event.sent_at) },
            now,
          );
          // Three days on, if the recipient has not watched, the sender may get a note (not-watched.ts).
          await scheduleNotWatchedCheck(trx, order, new Date(event.sent_at), now);
          return;
        case 'order.viewed':
          await queueSend(trx, order, { kind: 'sender_viewed_note', channel: 'email', dueAt: now }, now);
          await withdrawNotWatchedNote(trx, order, now);
          return;
        case 'order.thanked':
          // A Shopify order can come without the buyer's e-mail: no silent non-send.
          if (order.email.trim() === '') {
            await recordTimeline(
              trx,
              order,
              'system',
              [{ type: 'thanks.not_sent', data: { reason: 'the order has no e-mail address for the sender' } }],
              now,
            );
            return;
          }
          // A replaced reply keeps the first one's time: the e-mail renders the reply as it is then.
          await queueSend(
            trx,
            order,
            {
              kind: 'sender_thanks',
              channel: 'email',
              dueAt: new Date(now.getTime() + (options.thanksSendDelayMs ?? 0)),
            },
            now,
          );
          return;
        case 'order.cancelled':
        case 'order.deleted':
          await stopSends(
            trx,
            order,
            delivered.source,
            `order ${event.type === 'order.cancelled' ? 'cancelled' : 'deleted'}`,
            now,
          );
          return;
        case 'order.erased':
          await stopSends(trx, order, delivered.source, 'order deleted', now);
          await forgetDestinations(trx, order.id);
          return;
        case 'order.shipment_set':
        case 'order.shipment_cleared':
          return;
      }
    },
    afterCommit({ event }) {
      if (QUEUES_MESSAGES.has(event.type)) options.onMessagesQueued?.();
    },
  };
}
