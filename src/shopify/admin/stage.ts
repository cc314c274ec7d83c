import type { CarrierCode } from '../../carriers/carrier-code.ts';
import { carrierDisplayName } from '../../carriers/tracking-number.ts';
import { formatTime } from './ui/format.ts';
import type { Channel, OrderStatus, SendStatus, SendTrigger, VideoStatus } from '../../vocabulary.ts';
import type { Notice } from '../orders/packages.ts';
import { STAGES, type DisplayStage } from './contract.ts';
import { merchantWords } from './words.ts';

/**
 * Where an order stands, as the merchant sees it in the embedded admin: one stage per order,
 * derived (never stored) from the order and what the other modules know of it. The first rule that
 * holds wins — the order of `deriveStage` is the meaning, and `stage-sql.ts` repeats it in SQL for
 * the list filter (test/shopify/admin/stage-filter.test.ts holds the two together).
 *
 * `scheduled` (sent on a date or at once, not on delivery) and `cancelled` complete the contract's
 * eight filter stages (./contract.ts, which the page reads too), so that every order has exactly one.
 */
export const ORDER_STAGES = [...STAGES, 'scheduled', 'cancelled'] as const satisfies readonly DisplayStage[];
export type OrderStage = (typeof ORDER_STAGES)[number];

export const STAGE_LABELS: Record<OrderStage, string> = {
  awaiting_video: 'Awaiting video',
  needs_recipient: 'Needs recipient',
  tracking: 'On its way',
  waiting_on_shopify: 'Waiting on Shopify',
  delivered: 'Delivered',
  sent: 'Sent',
  viewed: 'Viewed',
  needs_attention: 'Needs attention',
  scheduled: 'Scheduled',
  cancelled: 'Cancelled',
};

/** A recipient's-video send as the stage reads it (notifications' `sends` row). */
export interface SendFact {
  channel: Channel;
  status: SendStatus;
  lastError: string | null;
  updatedAt: Date;
}

/** Everything the stage and its words depend on. */
export interface StageFacts {
  status: OrderStatus;
  hasRecipient: boolean;
  videoProcessed: boolean;
  delivered: boolean;
  sentAt: Date | null;
  viewedAt: Date | null;
  sendTrigger: SendTrigger;
  sendOn: Date | null;
  carrier: CarrierCode | null;
  /** The recipient's video sends, any status. */
  sends: readonly SendFact[];
  /** The newest upload, or null before any. */
  latestVideo: { status: VideoStatus; failureReason: string | null } | null;
  /**
   * Null when the order did not come from Shopify; else the link's current delivery notice and the
   * gift's packages Shopify knows of (how many, how many delivered).
   */
  shopify: {
    notice: Notice | null;
    packages?: { total: number; delivered: number };
  } | null;
  /** Tracking gave up on the package (the video will not send on its own). */
  trackingStopped: 'expired' | 'returned' | null;
}

/** A failed or uncertain recipient send with nothing queued or in flight behind it: only a resend helps. */
export function sendProblem(sends: readonly SendFact[]): SendFact | null {
  if (sends.some((send) => send.status === 'pending' || send.status === 'claimed' || send.status === 'sending'))
    return null;
  const problems = sends.filter((send) => send.status === 'failed' || send.status === 'uncertain');
  return problems.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0] ?? null;
}

/** The newest upload could not be processed and no earlier one was. */
export function videoFailed(facts: Pick<StageFacts, 'videoProcessed' | 'latestVideo'>): boolean {
  return !facts.videoProcessed && facts.latestVideo?.status === 'failed';
}

/** A package-triggered order that nothing will deliver on its own. */
export function deliveryBlocked(facts: StageFacts): boolean {
  return (
    facts.sendTrigger === 'package' &&
    !facts.delivered &&
    (facts.shopify?.notice?.type === 'delivery.blocked' || facts.trackingStopped !== null)
  );
}

export function needsAttention(facts: StageFacts): boolean {
  return sendProblem(facts.sends) !== null || videoFailed(facts) || deliveryBlocked(facts);
}

/**
 * The order counted as sent, but no send reached the recipient any more: the e-mail bounced after it
 * left (or a resend to a corrected address failed) and nothing is queued behind it.
 */
export function lostAfterSending(sends: readonly SendFact[]): boolean {
  return sendProblem(sends) !== null && !sends.some((send) => send.status === 'sent');
}

export function deriveStage(facts: StageFacts): OrderStage {
  if (facts.viewedAt) return 'viewed';
  if (facts.sentAt && !lostAfterSending(facts.sends)) return 'sent';
  if (facts.status === 'cancelled') return 'cancelled';
  if (needsAttention(facts)) return 'needs_attention';
  if (!facts.hasRecipient) return 'needs_recipient';
  if (!facts.videoProcessed) return 'awaiting_video';
  if (facts.sendTrigger !== 'package') return 'scheduled';
  if (facts.delivered) return 'delivered';
  if (facts.shopify && (facts.shopify.notice?.type === 'delivery.via_shopify' || facts.carrier === null))
    return 'waiting_on_shopify';
  return 'tracking';
}

/** Why it needs attention, in words; null when it does not (a sent, viewed or cancelled order never does). */
export function attentionReason(facts: StageFacts): string | null {
  if (deriveStage(facts) !== 'needs_attention') return null;
  const problem = sendProblem(facts.sends);
  if (problem?.status === 'uncertain')
    return `It is not known whether the video reached the recipient by ${channelWord(problem.channel)}: sending stopped half-way. Resend it if the recipient did not get it.`;
  if (problem)
    return `Sending the video to the recipient by ${channelWord(problem.channel)} failed${
      problem.lastError ? `: ${merchantWords(problem.lastError)}` : ''
    }. Correct the recipient's details if needed, then resend.`;
  if (videoFailed(facts))
    return `The video could not be processed${
      facts.latestVideo?.failureReason ? `: ${merchantWords(facts.latestVideo.failureReason)}` : ''
    }. The sender can record it again at the record link.`;
  if (deliveryBlocked(facts)) return blockedReason(facts);
  return null;
}

function blockedReason(facts: StageFacts): string {
  if (facts.trackingStopped === 'returned')
    return 'The carrier is returning the package to the sender, so the video will not send on its own. Mark the order delivered to send it.';
  if (facts.trackingStopped === 'expired')
    return 'Tracking stopped: the carrier reported nothing new for 30 days, so the video will not send on its own. Mark the order delivered, or correct the tracking number.';
  return `Delivery is blocked: ${merchantWords(facts.shopify?.notice?.reason ?? 'nothing will deliver this order')}.`;
}

/** Why the order waits (or cannot move on its own), in words; null once it no longer waits. */
export function waitingReason(
  facts: StageFacts,
  stage: OrderStage = deriveStage(facts),
  /** The shop's time zone: a date in the reason is written as the rest of the admin's are. */
  timeZone = 'UTC',
): string | null {
  switch (stage) {
    case 'viewed':
    case 'sent':
    case 'cancelled':
      return null;
    case 'needs_attention':
      return deliveryBlocked(facts) ? blockedReason(facts) : null;
    case 'needs_recipient':
      return 'Waiting for the sender to say who the video is for: they are asked in the record-link e-mail and on the record page.';
    case 'awaiting_video':
      return facts.latestVideo?.status === 'pending'
        ? 'The sender uploaded the video; it is being processed.'
        : 'No video yet: waiting for the sender to record it at the record link.';
    case 'scheduled':
      return facts.sendTrigger === 'date' && facts.sendOn
        ? `Scheduled to send on ${formatTime(facts.sendOn.toISOString(), timeZone)}.`
        : 'The video is being sent now.';
    case 'delivered':
      return 'Delivered: the video is on its way to the recipient.';
    case 'waiting_on_shopify':
      if (facts.shopify?.notice?.type === 'delivery.via_shopify')
        return `Waiting for Shopify to report the package delivered: ${merchantWords(facts.shopify.notice.reason)}.${otherPackages(facts)}`;
      if (facts.shopify?.notice?.type === 'delivery.awaiting_shipment')
        return `Waiting for the rest of the gift to ship: ${merchantWords(facts.shopify.notice.reason)}.${otherPackages(facts)}`;
      return facts.shopify?.packages?.total
        ? `Waiting for the gift's package to ship: Shopify has no tracked package for it yet.${otherPackages(facts)}`
        : 'Waiting for the order to ship: Shopify has no fulfillment with the gift yet.';
    case 'tracking':
      return facts.carrier
        ? `Waiting for ${carrierDisplayName(facts.carrier)} to deliver the package; the video is sent on delivery.${otherPackages(facts)}`
        : 'Waiting for a tracking number, or for the order to be marked delivered.';
  }
}

/** The gift comes in several packages and some have arrived: the video waits for the rest. */
function otherPackages(facts: StageFacts): string {
  const packages = facts.shopify?.packages;
  if (!packages || packages.total < 2 || packages.delivered === 0) return '';
  return ` ${packages.delivered} of ${packages.total} packages delivered; the video goes when the last one arrives.`;
}

function channelWord(channel: Channel): string {
  return channel === 'sms' ? 'SMS' : 'e-mail';
}
