import { describe, expect, it } from 'vitest';
import { SPEC_ORDER_FIELDS } from '../support/formats.ts';
import {
  formatDuration,
  formatTimestamp,
  serializeOrder,
  serializeUpdateResponse,
} from '../../src/orders/serializer.ts';
import { orderRow } from './order-row.ts';

/** A delivered, shipped order with a price. */
const row = orderRow({
  uuid: '6b4a51ad-1eba-4478-af38-02d4660202d3',
  status: 'delivered',
  carrier: 'ups',
  tracking_number: '1Z5R89390357567127',
  delivered: true,
  video_duration_tenths: 124,
  price: 550,
  created_at: new Date('2026-12-01T10:00:00.123Z'),
  updated_at: new Date('2026-12-02T11:30:00.999Z'),
  recorded_at: new Date('2026-12-01T10:05:00Z'),
  delivered_at: new Date('2026-12-02T11:30:00.999Z'),
});

describe('serializeOrder', () => {
  it("produces exactly the spec's 26 fields, in order, with the spec's types", () => {
    expect(serializeOrder(row, 'https://d.example')).toStrictEqual({
      id: 'ord_1',
      uuid: '6b4a51ad-1eba-4478-af38-02d4660202d3',
      name: 'Ann',
      email: 'ann@example.com',
      recipient_name: 'Bob',
      recipient_email: 'bob@example.com',
      recipient_phone: null,
      record_url: 'https://d.example/record/6b4a51ad-1eba-4478-af38-02d4660202d3',
      playback_url: 'https://d.example/watch/6b4a51ad-1eba-4478-af38-02d4660202d3',
      send_method: 'email',
      send_trigger: 'package',
      send_on: null,
      carrier: 'ups',
      tracking_number: '1Z5R89390357567127',
      delivered: '1',
      video_title: 'Hi',
      video_duration: '12.4',
      video_processed: '1',
      price: 550,
      status: 'delivered',
      created_at: '2026-12-01T10:00:00Z',
      updated_at: '2026-12-02T11:30:00Z',
      recorded_at: '2026-12-01T10:05:00Z',
      delivered_at: '2026-12-02T11:30:00Z',
      sent_at: null,
      viewed_at: null,
    });
    expect(JSON.stringify(Object.keys(serializeOrder(row, 'https://d.example')))).toBe(
      JSON.stringify(SPEC_ORDER_FIELDS),
    );
  });

  it('returns delivered and video_processed as "0" strings when false', () => {
    const json = serializeOrder(
      { ...row, delivered: false, delivered_at: null, video_processed: false },
      'https://d.example',
    );
    expect(json.delivered).toBe('0');
    expect(json.video_processed).toBe('0');
  });

  it('puts the warning first in an update response', () => {
    const text = JSON.stringify(
      serializeUpdateResponse(row, 'https://d.example', { type: 'request', message: 'not known to UPS yet' }),
    );
    expect(text.startsWith('{"warning":{"type":"request","message":"not known to UPS yet"},"id":"ord_1"')).toBe(true);
    expect(JSON.stringify(serializeUpdateResponse(row, 'https://d.example', null)).startsWith('{"id":')).toBe(true);
  });
});

describe('formats', () => {
  it('drops milliseconds from timestamps', () => {
    expect(formatTimestamp(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05Z');
  });

  it('writes durations in seconds with at most one decimal', () => {
    expect(formatDuration(0)).toBe('0');
    expect(formatDuration(124)).toBe('12.4');
    expect(formatDuration(120)).toBe('12');
    expect(formatDuration(5)).toBe('0.5');
  });
});
