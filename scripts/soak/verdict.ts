/**
 * The soak's judgement, pure: what the stories expected, what the inboxes received, what the
 * database says and how memory moved, in; lost, duplicated and grown, out. Kept apart from the
 * processes so `test/soak/verdict.test.ts` can show each rule failing.
 */

export type StoryKind =
  | 'api custom tracking, e-mail'
  | 'api FedEx (polled), SMS'
  | 'api UPS (pushed), e-mail + SMS'
  | 'shopify UPS'
  | 'shopify delivered by Shopify';

export interface ExpectedOrder {
  orderId: string;
  kind: StoryKind;
  /** The recipient's address and number: unique to this order, so each must get exactly one message. */
  email: string | null;
  phone: string | null;
  /** The sender's address (unique too) and how many notes it should get, each a different subject. */
  sender: string;
  senderMessages: number;
}

export interface Received {
  to: string;
  /** The e-mail's subject, or the SMS's text: two equal ones to one address are a duplicate. */
  subject: string;
}

export interface Delivery {
  orders: number;
  recipientMessages: number;
  senderMessages: number;
  /** Expected messages that never arrived, and orders without `sent_at`, one line each. */
  lost: string[];
  /** Messages that arrived more than once (same address and subject), one line each. */
  duplicated: string[];
  /**
   * Messages that never arrived to a destination whose send is `uncertain`: a worker died during the
   * provider call, and by design (docs/notifications.md) such a send waits for the merchant's resend
   * rather than risk a second copy. Visible on the order's timeline; not silently lost.
   */
  held: string[];
}

export function judgeDelivery(
  expected: ExpectedOrder[],
  received: Received[],
  sentAt: Map<string, string | null>,
  uncertainDestinations: Set<string> = new Set(),
): Delivery {
  const byAddress = new Map<string, Received[]>();
  for (const message of received) {
    const list = byAddress.get(message.to) ?? [];
    list.push(message);
    byAddress.set(message.to, list);
  }
  const lost: string[] = [];
  const duplicated: string[] = [];
  const held: string[] = [];
  let recipientMessages = 0;
  let senderMessages = 0;
  const duplicatesTo = (address: string, list: Received[]) => {
    const seen = new Map<string, number>();
    for (const { subject } of list) seen.set(subject, (seen.get(subject) ?? 0) + 1);
    for (const [subject, count] of seen)
      if (count > 1) duplicated.push(`${address} got "${subject.slice(0, 60)}" ${count} times`);
  };
  for (const order of expected) {
    const recipients = [order.email, order.phone].filter((address): address is string => address !== null);
    // The gift's only send is uncertain: by design it has no sent_at (nothing is known to have gone)
    // and no "sent" note follows; it is held for the merchant like the message itself.
    const giftHeld =
      recipients.length > 0 &&
      recipients.every((address) => !byAddress.has(address) && uncertainDestinations.has(address));
    if (!sentAt.get(order.orderId))
      (giftHeld ? held : lost).push(`${order.orderId} (${order.kind}): sent_at never set`);
    for (const address of [order.email, order.phone]) {
      if (address === null) continue;
      const list = byAddress.get(address) ?? [];
      recipientMessages += list.length;
      if (list.length === 0)
        (uncertainDestinations.has(address) ? held : lost).push(
          `${order.orderId} (${order.kind}): nothing reached ${address}`,
        );
      else if (list.length > 1)
        duplicated.push(`${order.orderId} (${order.kind}): ${address} got ${list.length} messages`);
    }
    const notes = byAddress.get(order.sender) ?? [];
    senderMessages += notes.length;
    duplicatesTo(order.sender, notes);
    const distinct = new Set(notes.map((note) => note.subject)).size;
    if (distinct < order.senderMessages)
      (uncertainDestinations.has(order.sender) || giftHeld ? held : lost).push(
        `${order.orderId} (${order.kind}): the sender got ${distinct} of ${order.senderMessages} notes`,
      );
  }
  return { orders: expected.length, recipientMessages, senderMessages, lost, duplicated, held };
}

export interface MemorySeries {
  name: string;
  /** RSS in bytes, sampled while the traffic ran, in order (`atMs` since the traffic started). */
  samples: Array<{ atMs: number; rss: number }>;
  /** RSS once the system had settled after the traffic. */
  endRss: number;
}

export interface MemoryVerdict {
  name: string;
  startRss: number;
  endRss: number;
  grew: boolean;
}

/**
 * "Memory stayed flat": the settled end against the first minute of traffic (the first half of a run
 * shorter than two minutes), whose median is the start. A Node process grows its heap in steps and
 * gives pages back lazily, so the end may exceed the start by `toleranceRatio` or `toleranceBytes`,
 * whichever is larger, before it counts as growth.
 */
export function judgeMemory(
  series: MemorySeries,
  trafficMs: number,
  tolerance: { ratio: number; bytes: number },
): MemoryVerdict {
  const windowMs = Math.min(60_000, trafficMs / 2);
  const first = series.samples.filter((s) => s.atMs <= windowMs).map((s) => s.rss);
  const pool = first.length > 0 ? first : series.samples.map((s) => s.rss);
  const startRss = median(pool.length > 0 ? pool : [series.endRss]);
  const allowed = Math.max(startRss * tolerance.ratio, tolerance.bytes);
  return { name: series.name, startRss, endRss: series.endRss, grew: series.endRss - startRss > allowed };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
