import { CARRIER_CODES, type CarrierCode } from '../../carriers/carrier-code.ts';
import { carrierDisplayName } from '../../carriers/tracking-number.ts';
import type { EventSource, TimelineEventType } from '../../vocabulary.ts';
import { BOUNCE_PHRASES } from '../../notifications/email-events/bounce-phrases.ts';
import { merchantWords } from './words.ts';

/** Who a timeline entry came from, as the merchant calls them. */
export const SOURCE_LABELS: Record<EventSource, string> = {
  api: 'your API',
  shopify: 'Shopify',
  carrier: 'the carrier',
  sender: 'the sender',
  system: 'Doorstep',
  admin: 'you, in the admin',
  recipient: 'the recipient',
};

export interface TimelineWords {
  title: string;
  detail: string | null;
  /**
   * A time the entry is about (the carrier's time of delivery, a send's next try), for the page to
   * write in the merchant's own words and time zone — never an ISO string in a sentence.
   */
  moment?: { label: string; at: string };
}

/**
 * One timeline entry in words a merchant understands: never the entry's type, never an internal
 * id (send, video, fulfillment ids stay out), only facts about their own order. Every entry type
 * has its words; a new type fails the typecheck here until it has them.
 */
export function describeTimelineEntry(entry: {
  type: TimelineEventType;
  source: EventSource;
  data: Record<string, unknown>;
}): TimelineWords {
  const { data, source } = entry;
  const reason = text(data.reason);
  const type = entry.type;
  switch (type) {
    case 'order.created':
      return words(
        source === 'shopify' ? 'The video order was created from the Shopify order' : 'The video order was created',
      );
    case 'order.needs_recipient':
      return words('Waiting for the sender to name the recipient', reason);
    case 'order.updated':
      return words('The order details were changed', changedFields(data));
    case 'order.recorded': {
      const seconds = typeof data.video_duration === 'number' ? data.video_duration : null;
      return words('The sender recorded the video', seconds !== null ? `${seconds} seconds long.` : null);
    }
    case 'order.delivered': {
      // The carrier's or Shopify's own time of delivery, which may be earlier than the entry.
      const at = text(data.delivered_at);
      return {
        ...words(deliveredTitle(source, data)),
        ...(at ? { moment: { label: 'Delivered', at: apiTimestamp(at) } } : {}),
      };
    }
    case 'order.cancelled':
      return words('The order was cancelled', reason);
    case 'order.deleted':
      return words('The order was deleted');
    case 'order.erased':
      return words("The customer's personal data was erased", reason);
    case 'shipment.set': {
      const carrier = carrierName(data.carrier);
      const number = text(data.tracking_number);
      return words(`The package ships with ${carrier ?? 'a carrier'}`, number ? `Tracking number ${number}.` : null);
    }
    case 'shipment.cleared':
      return words('The tracking number was removed');
    case 'delivery.signal_ignored':
      return words('A delivery report was ignored', reason ? `Because ${reason}.` : null);
    case 'video.uploaded':
      return words('A video was uploaded');
    case 'video.processing_failed':
      return words('The video could not be processed', reason);
    case 'video.sent':
      return words(`The video was sent to the recipient${channelSuffix(data.channel)}`);
    case 'video.viewed':
      return words('The recipient watched the video');
    case 'thanks.recorded':
      return words(
        `The recipient ${data.replaced === true ? 'replaced their' : 'recorded a'} thank-you ${data.reply === 'note' ? 'note' : 'video'}`,
      );
    case 'thanks.sent':
      return words('The sender was sent the thank-you');
    case 'thanks.not_sent':
      return words('The thank-you could not be sent to the sender', reason);
    case 'tracking.warning':
      return words('The tracking number may be wrong', text(data.message));
    case 'tracking.status': {
      const carrier = carrierName(data.carrier) ?? 'The carrier';
      const status = trackingStatusWords(text(data.status));
      // Carriers often describe a status in its own word ("DELIVERED"): said once, not twice.
      return words(`${carrier}: ${status}`, newWords(text(data.description), status));
    }
    case 'tracking.estimate': {
      const carrier = carrierName(data.carrier) ?? 'the carrier';
      const at = text(data.estimated_delivery_at);
      return {
        ...words('Shopify gave a delivery estimate', `${carrier} gave none; tracking uses Shopify's until it does`),
        ...(at ? { moment: { label: 'Expected by', at: apiTimestamp(at) } } : {}),
      };
    }
    case 'tracking.stopped':
      return words('Tracking stopped', text(data.message));
    case 'tracking.carrier_unavailable':
      return words('The carrier is not answering', text(data.message));
    case 'send.queued':
      return words(`The video is queued to send${channelSuffix(data.channel)}`);
    case 'send.waiting':
      return words('The video is not sent yet', reason);
    case 'send.withdrawn':
      return words('A queued send was withdrawn', reason);
    case 'send.cancelled':
      return words('Sending was cancelled', reason);
    case 'send.retry_scheduled': {
      const retryAt = text(data.retry_at);
      return {
        ...words(`Sending${channelSuffix(data.channel)} failed; it will be retried`, reason),
        ...(retryAt ? { moment: { label: 'Next try', at: apiTimestamp(retryAt) } } : {}),
      };
    }
    case 'send.requeued':
      return words(`Sending${channelSuffix(data.channel)} was interrupted; it will be tried again`, reason);
    case 'send.failed':
      return words(`Sending${kindSuffix(data.kind)}${channelSuffix(data.channel)} failed`, reason);
    case 'send.uncertain':
      return words(`It is not known whether the video went out${channelSuffix(data.channel)}`, reason);
    case 'send.resolved':
      return words(
        data.outcome === 'resent'
          ? `The provider never got the video${channelSuffix(data.channel)}; it is sent again`
          : `The provider confirmed the message went out${channelSuffix(data.channel)}`,
        reason,
      );
    case 'send.attention':
      return words(
        `Please check whether the message went out${channelSuffix(data.channel)}`,
        [reason, data.owner_emailed === true ? 'The store owner was e-mailed about it.' : null]
          .filter(Boolean)
          .join(' ') || null,
      );
    case 'send.resend_requested':
      return words('A resend was requested');
    case 'send.bounced':
      return words(
        BOUNCE_PHRASES.timelineTitle(data.bounce_type),
        [reason, data.kind === 'recipient_video' ? BOUNCE_PHRASES.timelineNext(data.sender_told === true) : null]
          .filter(Boolean)
          .join(' ') || null,
      );
    case 'note.sent':
      return words(noteTitle(data.kind));
    case 'note.not_watched':
      return words(notWatchedTitle(data.outcome), reason);
    case 'delivery.via_shopify':
      return words('The video will be sent when Shopify reports the package delivered', reason);
    case 'delivery.awaiting_shipment':
      return words('The video waits for the rest of the gift to ship', reason);
    case 'delivery.blocked':
      return words('Delivery is blocked', reason);
    case 'delivery.gift_changed':
      return words('The gift changed', reason);
    case 'delivery.package_arrived':
      return words('One of the gift’s packages arrived', reason);
    default: {
      const unhandled: never = type;
      throw new Error(`no words for timeline entry ${String(unhandled)}`);
    }
  }
}

function words(title: string, detail: string | null = null): TimelineWords {
  return { title, detail: detail ? sentence(merchantWords(detail)) : null };
}

function sentence(value: string): string {
  if (!value) return value;
  const capital = value[0]!.toUpperCase() + value.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function carrierName(value: unknown): string | null {
  return typeof value === 'string' && (CARRIER_CODES as readonly string[]).includes(value)
    ? carrierDisplayName(value as CarrierCode)
    : null;
}

function channelSuffix(channel: unknown): string {
  return channel === 'sms' ? ' by SMS' : channel === 'email' ? ' by e-mail' : '';
}

function kindSuffix(kind: unknown): string {
  switch (kind) {
    case 'recipient_video':
      return ' the video';
    case 'sender_record_link':
      return ' the record link to the sender';
    case 'sender_sent_note':
    case 'sender_viewed_note':
    case 'sender_bounce_note':
    case 'sender_not_watched_note':
      return ' a note to the sender';
    case 'sender_thanks':
      return ' the thank-you to the sender';
    default:
      return '';
  }
}

function noteTitle(kind: unknown): string {
  switch (kind) {
    case 'sender_record_link':
      return 'The sender was sent the link to record the video';
    case 'sender_sent_note':
      return 'The sender was told the video was sent';
    case 'sender_viewed_note':
      return 'The sender was told the recipient watched the video';
    case 'sender_bounce_note':
      return "The sender was told the video's e-mail bounced";
    case 'sender_not_watched_note':
      return 'The sender was told the recipient has not watched the video yet';
    default:
      return 'A note was sent to the sender';
  }
}

function notWatchedTitle(outcome: unknown): string {
  return outcome === 'queued'
    ? 'Not watched after three days: a note to the sender is on its way'
    : 'Not watched after three days: no note to the sender';
}

function deliveredTitle(source: EventSource, data: Record<string, unknown>): string {
  switch (source) {
    case 'carrier':
      return `${carrierName(data.carrier) ?? 'The carrier'} delivered the package`;
    case 'shopify':
      return 'Shopify reported the package delivered';
    case 'api':
      return 'Marked delivered through your API';
    case 'admin':
      return 'You marked the order delivered';
    case 'sender':
    case 'recipient':
    case 'system':
      return 'The order was marked delivered';
  }
}

const FIELD_WORDS: Record<string, string> = {
  name: "sender's name",
  email: "sender's e-mail",
  recipient_name: "recipient's name",
  recipient_email: "recipient's e-mail",
  recipient_phone: "recipient's phone",
  send_method: 'send method',
  send_trigger: 'when to send',
  send_on: 'send date',
  video_title: 'video title',
  price: 'price',
};

function changedFields(data: Record<string, unknown>): string | null {
  const fields = Array.isArray(data.fields) ? data.fields.filter((f): f is string => typeof f === 'string') : [];
  if (fields.length === 0) return null;
  const changed = `Changed: ${fields.map((field) => FIELD_WORDS[field] ?? field.replace(/_/g, ' ')).join(', ')}.`;
  const price = data.price as { from?: unknown; to?: unknown } | undefined;
  if (price && fields.includes('price'))
    return `${changed} Price ${formatCents(price.from)} → ${formatCents(price.to)}.`;
  return changed;
}

function formatCents(value: unknown): string {
  return typeof value === 'number' ? (value / 100).toFixed(2) : 'none';
}

const TRACKING_STATUS_WORDS: Record<string, string> = {
  pre_transit: 'label created, not yet picked up',
  in_transit: 'in transit',
  out_for_delivery: 'out for delivery',
  delivered: 'delivered',
  available_for_pickup: 'waiting for pickup',
  return_to_sender: 'returning to the sender',
  failure: 'delivery failed',
  not_found: 'does not know this tracking number yet',
  unknown: 'status unknown',
};

/** `2026-12-03T10:00:00.000Z` → `2026-12-03T10:00:00Z`: the API's timestamp format (the spec's), to the second. */
function apiTimestamp(at: string): string {
  return at.replace(/\.\d{3}Z$/, 'Z');
}

/** A carrier's description, unless it only repeats the status already said (any case or punctuation). */
export function newWords(description: string | null, said: string): string | null {
  if (!description) return null;
  const plain = (value: string) =>
    value
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  const told = plain(said);
  const given = plain(description);
  return given === '' || told.includes(given) || given === told ? null : description;
}

export function trackingStatusWords(status: string | null): string {
  return (status && TRACKING_STATUS_WORDS[status]) ?? 'status unknown';
}
