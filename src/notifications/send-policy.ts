import type { OrderRow } from '../orders/serializer.ts';
import type { Channel, SendKind, SendMethod } from '../vocabulary.ts';

export interface PlannedSend {
  kind: SendKind;
  channel: Channel;
  dueAt: Date;
}

/**
 * When the recipient's video is due (docs/design.md §1 send_trigger), or why it is not due yet.
 * Pure: notifications calls it on every order event that can change it and queues what it returns.
 */
export function recipientSendPlan(
  order: Pick<
    OrderRow,
    | 'status'
    | 'deleted_at'
    | 'video_processed'
    | 'delivered'
    | 'delivered_at'
    | 'send_trigger'
    | 'send_on'
    | 'send_method'
    | 'recipient_email'
    | 'recipient_phone'
  >,
  now: Date,
): { due: PlannedSend[] } | { waiting: string } {
  if (order.status === 'cancelled' || order.deleted_at !== null) return { waiting: 'the order is cancelled' };
  if (order.recipient_email === null && order.recipient_phone === null)
    return { waiting: 'the order has no recipient yet; the sender is asked for one on the record page' };
  if (!order.video_processed) return { waiting: 'the video is not recorded and processed yet' };
  let dueAt: Date;
  switch (order.send_trigger) {
    case 'package':
      if (!order.delivered) return { waiting: 'the package is not delivered yet' };
      dueAt = now;
      break;
    case 'date':
      if (!order.send_on) return { waiting: 'send_on is not set' };
      dueAt = order.send_on;
      break;
    default:
      dueAt = now;
  }
  return { due: channelsFor(order.send_method).map((channel) => ({ kind: 'recipient_video', channel, dueAt })) };
}

export function channelsFor(sendMethod: SendMethod): Channel[] {
  if (sendMethod === 'email_and_sms') return ['email', 'sms'];
  return sendMethod === 'sms' ? ['sms'] : ['email'];
}

/** Transient failures retry with backoff: 30 s, 1, 2, 4 … min, capped at 30 min; 10 tries in all (~2 h). */
export const MAX_SEND_ATTEMPTS = 10;

export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 30 * 60_000);
}

/** A claimed send not moved to `sending` within this long was abandoned before any provider call. */
export const CLAIM_TIMEOUT_MS = 2 * 60_000;
/** A send stuck in `sending` this long crashed mid-call: its outcome is unknown. */
export const SENDING_TIMEOUT_MS = 5 * 60_000;
