import { describe, expect, it } from 'vitest';
import { channelsFor, recipientSendPlan, retryDelayMs } from '../../src/notifications/send-policy.ts';

const now = new Date('2026-12-20T10:00:00Z');
const base: Parameters<typeof recipientSendPlan>[0] = {
  status: 'delivered',
  deleted_at: null,
  video_processed: true,
  delivered: true,
  delivered_at: now,
  send_trigger: 'package',
  send_on: null,
  send_method: 'email',
  recipient_email: 'bob@example.com',
  recipient_phone: null,
};

describe('recipientSendPlan', () => {
  it('is due now once a package order is delivered with a processed video', () => {
    expect(recipientSendPlan(base, now)).toEqual({ due: [{ kind: 'recipient_video', channel: 'email', dueAt: now }] });
  });

  it('waits, with a reason, for the video or the delivery', () => {
    expect(recipientSendPlan({ ...base, video_processed: false }, now)).toEqual({
      waiting: 'the video is not recorded and processed yet',
    });
    expect(recipientSendPlan({ ...base, delivered: false, delivered_at: null, status: 'recorded' }, now)).toEqual({
      waiting: 'the package is not delivered yet',
    });
  });

  it('waits, with a reason, for a recipient the order came without', () => {
    expect(recipientSendPlan({ ...base, recipient_email: null, recipient_phone: null }, now)).toEqual({
      waiting: 'the order has no recipient yet; the sender is asked for one on the record page',
    });
    expect(recipientSendPlan({ ...base, recipient_email: null, recipient_phone: '+15555550100' }, now)).toHaveProperty(
      'due',
    );
  });

  it('never sends a cancelled or deleted order', () => {
    expect(recipientSendPlan({ ...base, status: 'cancelled' }, now)).toHaveProperty('waiting');
    expect(recipientSendPlan({ ...base, deleted_at: now }, now)).toHaveProperty('waiting');
  });

  it('is due at send_on for the date trigger, delivered or not', () => {
    const sendOn = new Date('2026-12-24T08:00:00Z');
    expect(recipientSendPlan({ ...base, delivered: false, send_trigger: 'date', send_on: sendOn }, now)).toEqual({
      due: [{ kind: 'recipient_video', channel: 'email', dueAt: sendOn }],
    });
  });

  it('is due at once for the now trigger', () => {
    expect(recipientSendPlan({ ...base, delivered: false, send_trigger: 'now' }, now)).toHaveProperty('due');
  });

  it('uses both channels for email_and_sms', () => {
    expect(channelsFor('email_and_sms')).toEqual(['email', 'sms']);
    expect(channelsFor('sms')).toEqual(['sms']);
  });
});

describe('retryDelayMs', () => {
  it('doubles from 30 s and caps at 30 min', () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(20)).toBe(30 * 60_000);
  });

  it('starts from SEND_RETRY_FIRST_DELAY_MS when one is set, with the same cap', () => {
    expect([1, 2, 3].map((attempts) => retryDelayMs(attempts, 1_000))).toEqual([1_000, 2_000, 4_000]);
    expect(retryDelayMs(30, 1_000)).toBe(30 * 60_000);
  });
});
