import type { OrderRow } from '../orders/serializer.ts';
import type { Channel, SendKind, SendMethod, SendStatus } from '../vocabulary.ts';
import { BOUNCE_PHRASES } from './email-events/bounce-phrases.ts';

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

/** Where the recipient's video goes on a channel: the order's recipient e-mail or phone as it is now. */
export function recipientDestination(
  order: Pick<OrderRow, 'recipient_email' | 'recipient_phone'>,
  channel: Channel,
): string | null {
  return channel === 'sms' ? order.recipient_phone : order.recipient_email;
}

/**
 * Whether a send went to the address the order has now. E-mail addresses are compared without case:
 * mail systems deliver `Ann@Example.com` and `ann@example.com` to one mailbox, and a resend after a
 * case-only edit sent the video to it again (API probe). Phones are stored in E.164, one spelling each.
 */
function sameDestination(sent: string, current: string | null, channel: Channel): boolean {
  if (current === null) return false;
  return channel === 'sms' ? sent === current : sent.toLowerCase() === current.toLowerCase();
}

/** A recipient-video send as the resend decision sees it. */
export interface RecipientSendRecord {
  channel: Channel;
  status: SendStatus;
  /** Where it went (set when the provider is called; null before that, and after erasure). */
  destination: string | null;
  /** When the provider reported that it bounced after it left (then `failed`); absent or null if it did not. */
  bounced_at?: Date | null;
}

/**
 * What a resend the merchant asks for sends (`POST /v1/orders/{id}/resend`, the admin's Resend), or
 * why it cannot: the channels whose video has not reached the recipient's *current* address — after
 * a failed or uncertain send, or after the recipient's e-mail or phone was corrected once the video
 * had gone to the old one. A channel whose video reached the current address is never sent again, so
 * a double click or a retried request cannot send one person the video twice.
 */
export function resendPlan(
  order: Parameters<typeof recipientSendPlan>[0],
  sends: ReadonlyArray<RecipientSendRecord>,
  now: Date,
): { channels: Channel[] } | { refused: string } {
  const plan = recipientSendPlan(order, now);
  if ('waiting' in plan) return { refused: `Nothing to resend yet: ${plan.waiting}.` };
  if (sends.some((send) => send.status === 'claimed' || send.status === 'sending'))
    return { refused: 'The video is being sent right now.' };
  // A send waiting for its time (a chosen date) is not "being sent right now" (API probe).
  if (sends.some((send) => send.status === 'pending'))
    return { refused: 'The video is already waiting to be sent; it has not gone yet.' };
  const reached = (channel: Channel) =>
    sends.some(
      (send) =>
        send.channel === channel &&
        send.status === 'sent' &&
        // Where it went unknown (erased): it may have been this address, so it is not sent again.
        (send.destination === null || sameDestination(send.destination, recipientDestination(order, channel), channel)),
    );
  // An e-mail that bounced at the recipient's current address would bounce again: after a bounce the
  // resend takes SMS when the order has a phone, whatever the send method (issue 14, "No message
  // lost"), or waits for a corrected address.
  const bounced = sends.some(
    (send) =>
      send.channel === 'email' &&
      send.bounced_at != null &&
      send.destination !== null &&
      sameDestination(send.destination, recipientDestination(order, 'email'), 'email'),
  );
  const wanted: Channel[] = plan.due.map((due) => due.channel).filter((channel) => !(bounced && channel === 'email'));
  if (bounced && order.recipient_phone !== null && !wanted.includes('sms')) wanted.push('sms');
  const channels = wanted.filter((channel) => !reached(channel));
  if (channels.length === 0)
    return {
      refused:
        bounced && !reached('sms')
          ? BOUNCE_PHRASES.resendRefusedBounced
          : "The video was already sent to the recipient's current address. To send it to another address, change the recipient's details first.",
    };
  return { channels };
}

export function channelsFor(sendMethod: SendMethod): Channel[] {
  if (sendMethod === 'email_and_sms') return ['email', 'sms'];
  return sendMethod === 'sms' ? ['sms'] : ['email'];
}

/** Transient failures retry with backoff: 30 s, 1, 2, 4 … min, capped at 30 min; 10 tries in all (~2 h). */
export const MAX_SEND_ATTEMPTS = 10;

/** The clocks of crash recovery and backoff; every one is a setting (src/config.ts, README). */
export interface SendTiming {
  /** A claimed send not moved to `sending` within this long was abandoned before any provider call. */
  claimTimeoutMs: number;
  /** A send stuck in `sending` this long crashed mid-call: its outcome is unknown. Longer than any provider call. */
  sendingTimeoutMs: number;
  /** The first backoff step after a transient failure; each next one doubles it, up to 30 min. */
  retryFirstDelayMs: number;
}

export const DEFAULT_SEND_TIMING: SendTiming = {
  claimTimeoutMs: 2 * 60_000,
  sendingTimeoutMs: 5 * 60_000,
  retryFirstDelayMs: 30_000,
};

/**
 * While webhook intake is pressed (the worker's webhook processing steps aside for it,
 * src/shopify/intake/intake-priority.ts), messages other than recipients' videos wait, at most this
 * long past their due time: a flash sale's flood of orders queues a record-link e-mail each, and
 * composing and handing them over took the cores the intake needed (docs/scaling.md "Webhook
 * intake"). A shopper's e-mail a few minutes late harms no one; Shopify's webhooks answered late are
 * retried and, after repeated failures, unsubscribed. Recipients' videos are never held.
 */
export const OTHERS_HELD_FOR_INTAKE_AT_MOST_MS = 5 * 60_000;

/**
 * How many messages one dispatcher hands to the providers at once, and how many SMTP connections
 * its pool keeps open (SMTP_MAX_CONNECTIONS): nodemailer's own pool default, which most providers
 * allow per client.
 */
export const DEFAULT_SMTP_MAX_CONNECTIONS = 5;

export function retryDelayMs(attempts: number, firstDelayMs = DEFAULT_SEND_TIMING.retryFirstDelayMs): number {
  return Math.min(firstDelayMs * 2 ** Math.max(0, attempts - 1), 30 * 60_000);
}
