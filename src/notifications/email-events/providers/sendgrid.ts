import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { shortReason, type EmailEventKind, type EmailProviderEvent } from '../email-event-kinds.ts';

/**
 * SendGrid's Event Webhook (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/event):
 * a JSON array of events per POST. With the Signed Event Webhook on, SendGrid signs
 * `timestamp + raw body` with ECDSA (P-256, SHA-256) and sends the base64 DER signature in
 * `X-Twilio-Email-Event-Webhook-Signature` and the timestamp in `X-Twilio-Email-Event-Webhook-Timestamp`;
 * the verification key is the base64 public key SendGrid shows (SENDGRID_WEBHOOK_PUBLIC_KEY).
 */
export const SENDGRID_SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';

/** The public key as SendGrid shows it (base64 of the DER SubjectPublicKeyInfo), or PEM. Throws when it is not an EC key. */
export function sendgridPublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPublicKey(trimmed)
    : createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ec') throw new Error('not an ECDSA public key');
  return key;
}

/** Whether SendGrid signed exactly these bytes at this timestamp. */
export function sendgridSignatureValid(
  key: KeyObject,
  rawBody: Buffer,
  signature: string | undefined,
  timestamp: string | undefined,
): boolean {
  if (!signature || !timestamp) return false;
  try {
    return verify('sha256', Buffer.concat([Buffer.from(timestamp), rawBody]), key, Buffer.from(signature, 'base64'));
  } catch {
    // A signature that is not even DER: not SendGrid's.
    return false;
  }
}

export const sendgridEventSchema = z.looseObject({
  event: z.string().min(1),
  sg_event_id: z.string().min(1),
  sg_message_id: z.string().nullish(),
  'smtp-id': z.string().nullish(),
  reason: z.string().nullish(),
  response: z.string().nullish(),
  status: z.string().nullish(),
  type: z.string().nullish(),
});
export const sendgridBatchSchema = z.array(sendgridEventSchema).min(1).max(10_000);
export type SendgridEvent = z.infer<typeof sendgridEventSchema>;

/**
 * SendGrid's delivery events: `bounce` with `type: bounce` is a hard bounce, with `type: blocked` a
 * block (SendGrid's soft bounce, retried no more but not the address's fault); `dropped` never
 * left SendGrid (a suppressed address); `spamreport` a complaint; `deferred` a soft bounce it retries.
 */
function kindOf(event: SendgridEvent): EmailEventKind {
  switch (event.event) {
    case 'bounce':
      return event.type === 'blocked' ? 'soft_bounce' : 'hard_bounce';
    case 'dropped':
      return 'dropped';
    case 'spamreport':
      return 'complaint';
    case 'deferred':
      return 'soft_bounce';
    default:
      return 'other';
  }
}

export function sendgridEvent(body: SendgridEvent): EmailProviderEvent {
  return {
    provider: 'sendgrid',
    eventKey: body.sg_event_id,
    kind: kindOf(body),
    providerType: body.event === 'bounce' && body.type ? `bounce/${body.type}` : body.event,
    reason: shortReason(body.reason ?? body.response),
    messageIdHeader: body['smtp-id'] ?? null,
    // `sg_message_id` is the X-Message-Id SendGrid's SMTP answer names, then `.filter…` per recipient.
    providerMessageId: body.sg_message_id ? body.sg_message_id.split('.')[0]! : null,
  };
}
