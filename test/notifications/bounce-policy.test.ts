import { describe, expect, it } from 'vitest';
import { serverMessageId } from '../../src/notifications/email.ts';
import { sendIdFromMessageId, shortReason } from '../../src/notifications/email-events/email-event-kinds.ts';
import { loadEmailEventConfig } from '../../src/notifications/email-events/email-events-config.ts';
import { snsUrlAllowed } from '../../src/notifications/email-events/providers/ses.ts';
import { resendPlan } from '../../src/notifications/send-policy.ts';

describe('reading provider events', () => {
  it('finds our send in our Message-ID only', () => {
    expect(sendIdFromMessageId('<snd_0123456789abcdef01234567@doorstep>')).toBe('snd_0123456789abcdef01234567');
    expect(sendIdFromMessageId('<snd_0123456789abcdef01234567@elsewhere.example>')).toBeNull();
    expect(sendIdFromMessageId(null)).toBeNull();
  });

  it('keeps no address in a reason, and keeps it short', () => {
    expect(shortReason('smtp; 550 5.1.1 <bob@example.com>... User unknown')).toBe(
      'smtp; 550 5.1.1 <[address]>... User unknown',
    );
    expect(shortReason('x'.repeat(500))!.length).toBe(200);
    expect(shortReason('  ')).toBeNull();
  });

  it("records the SMTP server's queue id when its answer names one", () => {
    expect(serverMessageId('250 2.0.0 Ok: queued as 0CA4412040B')).toBe('0CA4412040B');
    expect(serverMessageId('250 Ok 0100018c2f0b5d5e-5a7c8f0e-1b2c-4d5e-8f9a-0b1c2d3e4f5a-000000')).toBe(
      '0100018c2f0b5d5e-5a7c8f0e-1b2c-4d5e-8f9a-0b1c2d3e4f5a-000000',
    );
    expect(serverMessageId('250 OK: message queued')).toBeNull();
  });
});

describe('SNS certificate hosts', () => {
  const production = ['sns.*.amazonaws.com'];
  it('accepts Amazon SNS hosts over https only by default', () => {
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem', production)).toBe(true);
    expect(snsUrlAllowed('http://sns.us-east-1.amazonaws.com/cert.pem', production)).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com.evil.test/cert.pem', production)).toBe(false);
    expect(snsUrlAllowed('https://evil.test/sns.us-east-1.amazonaws.com/cert.pem', production)).toBe(false);
    expect(snsUrlAllowed('https://sns.us-east-1.amazonaws.com:8443/cert.pem', production)).toBe(false);
    expect(snsUrlAllowed('http://127.0.0.1:4566/cert.pem', production)).toBe(false);
  });
  it('takes a region for the wildcard, not any label: S3 bucket hosts are anyone’s', () => {
    expect(snsUrlAllowed('https://sns.us-gov-west-1.amazonaws.com/cert.pem', production)).toBe(true);
    expect(snsUrlAllowed('https://sns.eu-central-2.amazonaws.com/cert.pem', production)).toBe(true);
    expect(snsUrlAllowed('https://sns.s3.amazonaws.com/cert.pem', production)).toBe(false);
    expect(snsUrlAllowed('https://sns.s3-website-us-east-1.amazonaws.com/cert.pem', production)).toBe(false);
  });
  it('accepts a configured origin exactly', () => {
    expect(snsUrlAllowed('http://127.0.0.1:4566/cert.pem', ['http://127.0.0.1:4566'])).toBe(true);
    expect(snsUrlAllowed('http://127.0.0.1:4567/cert.pem', ['http://127.0.0.1:4566'])).toBe(false);
  });
});

describe('settings', () => {
  it('refuses half or weak Postmark credentials, a key that is not ECDSA and a malformed topic, naming each', () => {
    expect(() => loadEmailEventConfig({ POSTMARK_WEBHOOK_USERNAME: 'hook' })).toThrow(/must be set together/);
    expect(() =>
      loadEmailEventConfig({ POSTMARK_WEBHOOK_USERNAME: 'hook', POSTMARK_WEBHOOK_PASSWORD: 'short' }),
    ).toThrow(/at least 16/);
    expect(() => loadEmailEventConfig({ SENDGRID_WEBHOOK_PUBLIC_KEY: 'bm90IGEga2V5' })).toThrow(
      /SENDGRID_WEBHOOK_PUBLIC_KEY/,
    );
    expect(() => loadEmailEventConfig({ SES_SNS_TOPIC_ARNS: 'my-topic' })).toThrow(/SES_SNS_TOPIC_ARNS/);
    expect(loadEmailEventConfig({})).toEqual({ postmark: null, ses: null, sendgrid: null });
  });
});

describe('resend after a bounce', () => {
  const now = new Date('2026-12-01T10:00:00Z');
  const order = {
    status: 'delivered' as const,
    deleted_at: null,
    video_processed: true,
    delivered: true,
    delivered_at: now,
    send_trigger: 'package' as const,
    send_on: null,
    send_method: 'email' as const,
    recipient_email: 'bob@example.com',
    recipient_phone: '+14155550123' as string | null,
  };
  const bounced = {
    channel: 'email' as const,
    status: 'failed' as const,
    destination: 'bob@example.com',
    bounced_at: now,
  };

  it('takes SMS when the order has a phone', () => {
    expect(resendPlan(order, [bounced], now)).toEqual({ channels: ['sms'] });
  });
  it('refuses without a phone, and resends by e-mail once the address is corrected', () => {
    expect(resendPlan({ ...order, recipient_phone: null }, [bounced], now)).toEqual({
      refused: expect.stringMatching(/bounced/),
    });
    expect(resendPlan({ ...order, recipient_phone: null, recipient_email: 'bob@new.example' }, [bounced], now)).toEqual(
      { channels: ['email'] },
    );
  });
  it('resends by e-mail after a failure that was not a bounce', () => {
    expect(resendPlan(order, [{ ...bounced, bounced_at: null }], now)).toEqual({ channels: ['email'] });
  });
});
