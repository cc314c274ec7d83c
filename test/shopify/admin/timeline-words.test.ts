import { describe, expect, it } from 'vitest';
import { describeTimelineEntry, SOURCE_LABELS } from '../../../src/shopify/admin/timeline-words.ts';
import { unmappedTrackingCompanies } from '../../../src/shopify/admin/settings.ts';
import { EVENT_SOURCES, TIMELINE_EVENT_TYPES, type TimelineEventType } from '../../../src/vocabulary.ts';

/** The data each entry type is written with (see the writers named in src/vocabulary.ts). */
const samples: Record<TimelineEventType, Record<string, unknown>> = {
  'order.created': {},
  'order.needs_recipient': { reason: 'line item 7 came with no recipient_email or recipient_phone' },
  'order.updated': { fields: ['recipient_email', 'price'], price: { from: 550, to: 600 } },
  'order.recorded': { video_duration: 12.4 },
  'order.delivered': { delivered_at: '2026-12-03T10:00:00.000Z', carrier: 'ups', tracking_number: '1Z999' },
  'order.cancelled': { reason: 'cancelled in Shopify' },
  'order.deleted': {},
  'order.erased': { reason: 'customers/redact' },
  'shipment.set': { carrier: 'fedex', tracking_number: '986578788855' },
  'shipment.cleared': {},
  'delivery.signal_ignored': { reason: 'already delivered', shopify_fulfillment_ids: ['55'] },
  'video.uploaded': { video_id: 'vid_secret', size_bytes: 1000, content_type: 'video/webm' },
  'video.processing_failed': { reason: 'The file is not a video.', video_id: 'vid_secret' },
  'video.sent': { channel: 'sms' },
  'video.viewed': {},
  'thanks.recorded': { reply: 'note', replaced: false },
  'thanks.sent': {},
  'thanks.not_sent': { reason: 'the order has no sender e-mail address' },
  'tracking.warning': { message: '"1Z1" is not a valid UPS tracking number.' },
  'tracking.status': {
    carrier: 'ups',
    status: 'out_for_delivery',
    description: 'Out For Delivery Today',
    at: '2026-12-03T08:00:00Z',
  },
  'tracking.estimate': {
    carrier: 'ups',
    estimated_delivery_at: '2026-12-05T23:59:59.000Z',
    at: '2026-12-03T10:00:00.000Z',
    via: 'shopify',
  },
  'tracking.stopped': { reason: 'expired', message: 'Tracking stopped: UPS reported nothing new for 30 days.' },
  'tracking.carrier_unavailable': {
    carrier: 'usps',
    message: 'USPS did not answer 3 times in a row; retrying with backoff.',
  },
  'send.queued': { channel: 'email', due_at: '2026-12-03T10:00:00.000Z' },
  'send.waiting': { reason: 'the video is not recorded and processed yet' },
  'send.withdrawn': { channels: ['email'], reason: 'send_method changed' },
  'send.cancelled': { reason: 'order cancelled' },
  'send.retry_scheduled': {
    kind: 'recipient_video',
    channel: 'email',
    attempt: 1,
    retry_at: '2026-12-03T10:00:30Z',
    reason: 'SMTP timeout',
  },
  'send.requeued': {
    kind: 'recipient_video',
    channel: 'email',
    reason: 'The sending process stopped before handing the message to the provider.',
  },
  'send.failed': { kind: 'recipient_video', channel: 'email', reason: '550 mailbox unavailable' },
  'send.uncertain': { kind: 'recipient_video', channel: 'sms', reason: 'The sending process stopped.' },
  'send.resolved': {
    kind: 'recipient_video',
    channel: 'sms',
    outcome: 'resent',
    reason: 'The SMS provider has no message to that number.',
  },
  'send.attention': {
    kind: 'recipient_video',
    channel: 'email',
    reason: 'The e-mail provider cannot be asked.',
    owner_emailed: true,
  },
  'send.resend_requested': {},
  'send.bounced': {
    kind: 'recipient_video',
    channel: 'email',
    provider: 'ses',
    bounce_type: 'hard_bounce',
    provider_type: 'Permanent/General',
    reason: 'smtp; 550 5.1.1 [address]: Recipient address rejected',
  },
  'note.sent': { kind: 'sender_record_link' },
  'note.not_watched': { outcome: 'setting_off', reason: 'the store turned the not-watched note off' },
  'delivery.via_shopify': {
    reason: 'Doorstep does not track "Canada Post"; the video is sent when Shopify reports the package delivered',
  },
  'delivery.awaiting_shipment': {
    reason:
      "1 of the gift's 2 items has not shipped yet (Shopify line item 4801): the video waits until every package of the gift is delivered, or the order is marked delivered (PUT delivered: 1)",
  },
  'delivery.blocked': { reason: 'the Shopify order has no item that ships (PUT delivered: 1)' },
  'delivery.gift_changed': {
    reason:
      'the gift changed with the Shopify order (removed Shopify line item 4801; added Shopify line item 4802): the video waits for what the order ships now',
  },
  'delivery.package_arrived': {
    reason: "1 of the gift's 2 packages has arrived, and the video goes when the last one does",
  },
};

describe('describeTimelineEntry', () => {
  it.each(TIMELINE_EVENT_TYPES)('%s has words of its own: no event code, no internal id', (type) => {
    for (const source of EVENT_SOURCES) {
      const words = describeTimelineEntry({ type, source, data: samples[type] });
      expect(words.title).toMatch(/^[A-Z"]/);
      expect(words.title).not.toContain(type);
      expect(`${words.title} ${words.detail ?? ''}`).not.toMatch(
        /vid_secret|\bsnd_|recipient_email|PUT delivered|_id\b/,
      );
      if (words.detail !== null) expect(words.detail).toMatch(/^[A-Z0-9"].*[.!?]$/);
    }
  });

  it('gives every entry type a different title (nothing is lumped together)', () => {
    const titles = TIMELINE_EVENT_TYPES.map(
      (type) => describeTimelineEntry({ type, source: 'system', data: samples[type] }).title,
    );
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('says who delivered and what changed', () => {
    const delivered = (source: (typeof EVENT_SOURCES)[number]) =>
      describeTimelineEntry({ type: 'order.delivered', source, data: samples['order.delivered'] }).title;
    expect(delivered('carrier')).toBe('UPS delivered the package');
    expect(delivered('shopify')).toBe('Shopify reported the package delivered');
    expect(delivered('admin')).toBe('You marked the order delivered');
    expect(delivered('api')).toBe('Marked delivered through your API');
    // The time is the page's to write (in the merchant's time zone), never an ISO string in a sentence.
    expect(
      describeTimelineEntry({ type: 'order.delivered', source: 'carrier', data: samples['order.delivered'] }),
    ).toEqual({
      title: 'UPS delivered the package',
      detail: null,
      moment: { label: 'Delivered', at: '2026-12-03T10:00:00Z' },
    });
    expect(describeTimelineEntry({ type: 'order.updated', source: 'admin', data: samples['order.updated'] })).toEqual({
      title: 'The order details were changed',
      detail: "Changed: recipient's e-mail, price. Price 5.50 → 6.00.",
    });
    expect(
      describeTimelineEntry({ type: 'tracking.status', source: 'carrier', data: samples['tracking.status'] }),
    ).toEqual({
      title: 'UPS: out for delivery',
      detail: 'Out For Delivery Today.',
    });
    // A carrier describing a status in its own word says it once: "UPS: delivered", not "… / DELIVERED."
    expect(
      describeTimelineEntry({
        type: 'tracking.status',
        source: 'carrier',
        data: { carrier: 'ups', status: 'delivered', description: 'DELIVERED' },
      }),
    ).toEqual({ title: 'UPS: delivered', detail: null });
    expect(
      describeTimelineEntry({
        type: 'tracking.status',
        source: 'carrier',
        data: { carrier: 'ups', status: 'delivered', description: 'Delivered: front porch' },
      }).detail,
    ).toBe('Delivered: front porch.');
    expect(
      describeTimelineEntry({ type: 'delivery.blocked', source: 'shopify', data: samples['delivery.blocked'] }).detail,
    ).toBe('The Shopify order has no item that ships.');
  });

  it('labels every source in words', () => {
    expect(SOURCE_LABELS).toEqual({
      api: 'your API',
      shopify: 'Shopify',
      carrier: 'the carrier',
      sender: 'the sender',
      system: 'Doorstep',
      admin: 'you, in the admin',
      recipient: 'the recipient',
    });
  });
});

describe('unmappedTrackingCompanies', () => {
  const day = (d: number) => new Date(Date.UTC(2026, 11, d));
  it('lists the names no carrier or alias covers, spellings merged, most used first', () => {
    expect(
      unmappedTrackingCompanies(
        [
          { company: 'UPS', fulfillments: 9, lastSeenAt: day(1) },
          { company: 'Canada Post', fulfillments: 2, lastSeenAt: day(1) },
          { company: 'canada  post.', fulfillments: 1, lastSeenAt: day(3) },
          { company: 'Royal Mail Tracked', fulfillments: 5, lastSeenAt: day(2) },
          { company: 'Hermes', fulfillments: 1, lastSeenAt: null },
          { company: '  ', fulfillments: 4, lastSeenAt: day(2) },
        ],
        { 'royal mail tracked': 'usps' },
      ),
    ).toEqual([
      { name: 'canada  post.', fulfillments: 3, last_seen_at: '2026-12-03T00:00:00Z' },
      { name: 'Hermes', fulfillments: 1, last_seen_at: null },
    ]);
  });
});
