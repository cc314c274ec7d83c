import type { OrderRow } from '../../src/orders/serializer.ts';

/**
 * An order row as the database holds it — Ann's gift to Bob by e-mail on delivery, its video
 * recorded, not shipped — with what a test is about in `overrides`.
 */
export function orderRow(overrides: Partial<OrderRow> = {}): OrderRow {
  return {
    id: 'ord_1',
    seq: 1,
    account_id: 'acc_1',
    uuid: 'u',
    status: 'recorded',
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    recipient_email: 'bob@example.com',
    recipient_phone: null,
    send_method: 'email',
    send_trigger: 'package',
    send_on: null,
    carrier: null,
    tracking_number: null,
    delivered: false,
    video_title: 'Hi',
    video_duration_tenths: 0,
    video_processed: true,
    price: null,
    created_at: new Date('2026-12-01T00:00:00Z'),
    updated_at: new Date('2026-12-01T00:00:00Z'),
    recorded_at: null,
    delivered_at: null,
    sent_at: null,
    viewed_at: null,
    cancelled_at: null,
    deleted_at: null,
    sender_phone: null,
    ...overrides,
  };
}
