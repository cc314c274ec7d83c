import { describe, expect, it } from 'vitest';
import {
  attentionReason,
  deriveStage,
  ORDER_STAGES,
  STAGE_LABELS,
  waitingReason,
  type SendFact,
  type StageFacts,
} from '../../../src/shopify/admin/stage.ts';
import { actionRefusals } from '../../../src/shopify/admin/order-detail.ts';
import type { OrderRow } from '../../../src/orders/serializer.ts';
import type { SendStatus } from '../../../src/vocabulary.ts';

const at = new Date('2026-12-01T10:00:00Z');

/** An API order with a recipient, a processed video and a UPS package on its way. */
const base: StageFacts = {
  status: 'recorded',
  hasRecipient: true,
  videoProcessed: true,
  delivered: false,
  sentAt: null,
  viewedAt: null,
  sendTrigger: 'package',
  sendOn: null,
  carrier: 'ups',
  sends: [],
  latestVideo: { status: 'processed', failureReason: null },
  shopify: null,
  trackingStopped: null,
};
const send = (status: SendFact['status'], lastError: string | null = null): SendFact => ({
  channel: 'email',
  status,
  lastError,
  updatedAt: at,
});

describe('deriveStage', () => {
  const cases: Array<[string, Partial<StageFacts>, (typeof ORDER_STAGES)[number]]> = [
    ['a package on its way', {}, 'tracking'],
    ['an API order without a tracking number', { carrier: null }, 'tracking'],
    ['no video yet', { videoProcessed: false, status: 'created', latestVideo: null }, 'awaiting_video'],
    [
      'a video being processed',
      { videoProcessed: false, latestVideo: { status: 'pending', failureReason: null } },
      'awaiting_video',
    ],
    ['no recipient (and no video)', { hasRecipient: false, videoProcessed: false }, 'needs_recipient'],
    ['a Shopify order not shipped yet', { carrier: null, shopify: { notice: null } }, 'waiting_on_shopify'],
    [
      "a package only Shopify's delivered status can deliver",
      {
        carrier: null,
        shopify: { notice: { type: 'delivery.via_shopify', reason: 'Doorstep does not track "Canada Post"' } },
      },
      'waiting_on_shopify',
    ],
    ['a Shopify order tracked by the carrier', { shopify: { notice: null } }, 'tracking'],
    ['delivered, the send queued', { delivered: true, status: 'delivered', sends: [send('pending')] }, 'delivered'],
    ['sent', { delivered: true, sentAt: at, sends: [send('sent')] }, 'sent'],
    ['viewed', { delivered: true, sentAt: at, viewedAt: at }, 'viewed'],
    ['cancelled', { status: 'cancelled' }, 'cancelled'],
    ['sends on a date', { sendTrigger: 'date', sendOn: at }, 'scheduled'],
    ['sends at once', { sendTrigger: 'now', carrier: null }, 'scheduled'],
    ['a failed send', { delivered: true, sends: [send('failed', 'mailbox unavailable')] }, 'needs_attention'],
    ['an uncertain send', { delivered: true, sends: [send('uncertain')] }, 'needs_attention'],
    [
      'a failed send already resent (queued)',
      { delivered: true, sends: [send('failed'), send('pending')] },
      'delivered',
    ],
    [
      'the video failed processing',
      { videoProcessed: false, latestVideo: { status: 'failed', failureReason: 'not a video' } },
      'needs_attention',
    ],
    [
      'delivery blocked on Shopify',
      {
        carrier: null,
        shopify: { notice: { type: 'delivery.blocked', reason: 'the Shopify order has no item that ships' } },
      },
      'needs_attention',
    ],
    ['tracking expired', { trackingStopped: 'expired' }, 'needs_attention'],
    ['the package goes back to the sender', { trackingStopped: 'returned' }, 'needs_attention'],
    [
      'blocked, but sending on a date anyway',
      { sendTrigger: 'date', sendOn: at, trackingStopped: 'expired' },
      'scheduled',
    ],
    ['blocked, but delivered meanwhile', { delivered: true, trackingStopped: 'expired' }, 'delivered'],
    ['a failed send on a cancelled order', { status: 'cancelled', sends: [send('failed')] }, 'cancelled'],
    [
      'sent by SMS though e-mail failed',
      { sentAt: at, sends: [send('failed'), { ...send('sent'), channel: 'sms' }] },
      'sent',
    ],
  ];
  for (const [what, facts, stage] of cases) {
    it(`${what} → ${stage}`, () => {
      expect(deriveStage({ ...base, ...facts })).toBe(stage);
    });
  }

  it('puts every combination of facts in exactly one stage, with words for it', () => {
    const seen = new Set<string>();
    for (const combination of combinations()) {
      const stage = deriveStage(combination);
      seen.add(stage);
      expect(ORDER_STAGES).toContain(stage);
      expect(STAGE_LABELS[stage]).toMatch(/^[A-Z][A-Za-z ]+$/);
      const waiting = waitingReason(combination, stage);
      const attention = attentionReason(combination);
      // Attention words exactly when the stage is needs_attention; waiting words while it waits.
      expect(attention !== null).toBe(stage === 'needs_attention');
      if (['sent', 'viewed', 'cancelled'].includes(stage)) expect(waiting).toBeNull();
      else if (stage !== 'needs_attention') expect(waiting).toMatch(/^[A-Z].*\.$/);
      for (const words of [waiting, attention]) if (words) expect(words).not.toMatch(/PUT|delivered: 1|_/);
    }
    expect([...seen].sort()).toEqual([...ORDER_STAGES].sort());
  });
});

describe('words for the reason', () => {
  it('says why a send failed, with the error, and what to do', () => {
    expect(attentionReason({ ...base, delivered: true, sends: [send('failed', 'Mailbox unavailable.')] })).toBe(
      "Sending the video to the recipient by e-mail failed: Mailbox unavailable. Correct the recipient's details if needed, then resend.",
    );
    expect(attentionReason({ ...base, sends: [{ ...send('uncertain'), channel: 'sms' }] })).toMatch(
      /^It is not known whether the video reached the recipient by SMS/,
    );
  });

  it('keeps our own network out of a provider error', () => {
    expect(
      attentionReason({
        ...base,
        delivered: true,
        sends: [send('failed', 'Gave up after 10 attempts: connect ECONNREFUSED 10.0.0.5:587')],
      }),
    ).toBe(
      "Sending the video to the recipient by e-mail failed: Gave up after 10 attempts: connect ECONNREFUSED the provider. Correct the recipient's details if needed, then resend.",
    );
  });

  it("turns the API's wording of a blocked delivery into the admin's", () => {
    const facts: StageFacts = {
      ...base,
      carrier: null,
      shopify: {
        notice: {
          type: 'delivery.blocked',
          reason:
            'Doorstep does not track "Canada Post", and this shop has switched off Shopify\'s delivery status: the order will not be delivered on its own (mark it delivered with PUT delivered: 1)',
        },
      },
    };
    const reason = attentionReason(facts)!;
    expect(reason).toBe(
      'Delivery is blocked: Doorstep does not track "Canada Post", and this shop has switched off Shopify\'s delivery status: the order will not be delivered on its own (mark it delivered).',
    );
    expect(waitingReason(facts)).toBe(reason);
  });

  it('says what it waits for', () => {
    expect(waitingReason(base)).toBe('Waiting for UPS to deliver the package; the video is sent on delivery.');
    // In the shop's time zone, as the admin writes every date (storefront probe: it was raw UTC).
    expect(waitingReason({ ...base, sendTrigger: 'date', sendOn: at }, undefined, 'America/New_York')).toBe(
      'Scheduled to send on Dec 1, 2026, 5:00 AM EST.',
    );
    expect(waitingReason({ ...base, carrier: null, shopify: { notice: null } })).toMatch(/Shopify has no fulfillment/);
    expect(waitingReason({ ...base, videoProcessed: false, latestVideo: null })).toMatch(/^No video yet/);
  });

  it('says how many of the gift’s packages arrived while it waits for the rest', () => {
    const packages = (delivered: number, total: number): StageFacts => ({
      ...base,
      shopify: { notice: null, packages: { total, delivered } },
    });
    expect(waitingReason(packages(1, 3))).toBe(
      'Waiting for UPS to deliver the package; the video is sent on delivery. 1 of 3 packages delivered; the video goes when the last one arrives.',
    );
    expect(waitingReason(packages(0, 3))).toBe(
      'Waiting for UPS to deliver the package; the video is sent on delivery.',
    );
    expect(waitingReason(packages(0, 1))).toBe(waitingReason(base));
    expect(
      waitingReason({
        ...packages(2, 3),
        carrier: null,
        shopify: {
          notice: { type: 'delivery.via_shopify', reason: 'Doorstep does not track "Canada Post"' },
          packages: { total: 3, delivered: 2 },
        },
      }),
    ).toBe(
      'Waiting for Shopify to report the package delivered: Doorstep does not track "Canada Post". 2 of 3 packages delivered; the video goes when the last one arrives.',
    );
    expect(
      waitingReason({
        ...packages(2, 2),
        carrier: null,
        shopify: {
          notice: {
            type: 'delivery.awaiting_shipment',
            reason: "1 of the gift's 3 items has not shipped yet (Shopify line item 4801)",
          },
          packages: { total: 2, delivered: 2 },
        },
      }),
    ).toBe(
      "Waiting for the rest of the gift to ship: 1 of the gift's 3 items has not shipped yet (Shopify line item 4801). 2 of 2 packages delivered; the video goes when the last one arrives.",
    );
  });
});

describe('actionRefusals', () => {
  const order = {
    status: 'delivered',
    delivered: true,
    sent_at: null,
    deleted_at: null,
    video_processed: true,
    delivered_at: at,
    send_trigger: 'package',
    send_on: null,
    send_method: 'email',
    recipient_email: 'bob@example.com',
    recipient_phone: null,
  } as unknown as OrderRow;

  it('allows a resend after a failed send and refuses it while one is queued or after it went out', () => {
    const send = (status: SendStatus, destination: string | null = 'bob@example.com') => [
      { channel: 'email' as const, status, destination },
    ];
    expect(actionRefusals(order, send('failed'), at).resend).toBeNull();
    expect(actionRefusals(order, send('pending', null), at).resend).toBe(
      'The video is already waiting to be sent; it has not gone yet.',
    );
    expect(actionRefusals(order, send('sending', null), at).resend).toBe('The video is being sent right now.');
    expect(actionRefusals(order, send('sent'), at).resend).toBe(
      "The video was already sent to the recipient's current address. To send it to another address, change the recipient's details first.",
    );
  });

  it("allows a resend once the recipient's address was corrected after the video went to the old one", () => {
    expect(
      actionRefusals(order, [{ channel: 'email', status: 'sent', destination: 'bob@exmaple.com' }], at).resend,
    ).toBeNull();
    // The same mailbox spelt in other case is not a corrected address (API probe: the video went three times).
    for (const destination of ['Bob@Example.com', 'BOB@EXAMPLE.COM'])
      expect(actionRefusals(order, [{ channel: 'email', status: 'sent', destination }], at).resend).toMatch(
        /already sent/,
      );
    // Where an earlier video went is unknown (erased): it is not sent again.
    expect(actionRefusals(order, [{ channel: 'email', status: 'sent', destination: null }], at).resend).toMatch(
      /already sent/,
    );
  });

  it('refuses marking delivered twice, cancelling a sent order, and anything on a cancelled one', () => {
    expect(actionRefusals(order, [], at).mark_delivered).toBe('The order is already delivered.');
    expect(actionRefusals({ ...order, sent_at: at }, [], at).cancel).toMatch(/already been sent/);
    const cancelled = actionRefusals({ ...order, status: 'cancelled' }, [], at);
    expect(Object.values(cancelled)).toEqual(Array(4).fill('The order is cancelled.'));
    expect(actionRefusals({ ...order, delivered: false, status: 'recorded' }, [], at)).toMatchObject({
      mark_delivered: null,
      cancel: null,
      edit_recipient: null,
      resend: 'Nothing to resend yet: the package is not delivered yet.',
    });
  });
});

/** Every mix of the facts that matter to the stage (a few values each). */
function* combinations(): Generator<StageFacts> {
  const sendsOptions: SendFact[][] = [
    [],
    [send('failed', 'bounced')],
    [send('uncertain')],
    [send('pending')],
    [send('sent')],
  ];
  const videos: StageFacts['latestVideo'][] = [
    null,
    { status: 'pending', failureReason: null },
    { status: 'failed', failureReason: 'unreadable' },
  ];
  const shopifyOptions: StageFacts['shopify'][] = [
    null,
    { notice: null },
    { notice: { type: 'delivery.via_shopify', reason: 'x' } },
    { notice: { type: 'delivery.blocked', reason: 'y (PUT delivered: 1)' } },
  ];
  for (const status of ['created', 'recorded', 'delivered', 'cancelled'] as const)
    for (const hasRecipient of [true, false])
      for (const videoProcessed of [true, false])
        for (const sent of [false, true])
          for (const viewed of sent ? [false, true] : [false])
            for (const sendTrigger of ['package', 'date', 'now'] as const)
              for (const carrier of ['ups', null] as const)
                for (const sends of sendsOptions)
                  for (const latestVideo of videos)
                    for (const shopify of shopifyOptions)
                      for (const trackingStopped of [null, 'expired', 'returned'] as const)
                        yield {
                          status,
                          hasRecipient,
                          videoProcessed,
                          delivered: status === 'delivered',
                          sentAt: sent ? at : null,
                          viewedAt: viewed ? at : null,
                          sendTrigger,
                          sendOn: sendTrigger === 'date' ? at : null,
                          carrier,
                          sends,
                          latestVideo,
                          shopify,
                          trackingStopped,
                        };
}
