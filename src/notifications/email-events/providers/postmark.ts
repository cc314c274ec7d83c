import { z } from 'zod';
import {
  messageIdIn,
  SEND_ID_METADATA_KEY,
  sendIdFromMessageId,
  shortReason,
  type EmailEventKind,
  type EmailProviderEvent,
} from '../email-event-kinds.ts';

/**
 * Postmark's outbound webhooks (https://postmarkapp.com/developer/webhooks/bounce-webhook and
 * spam-complaint-webhook): one JSON object per POST, `RecordType` saying which. Postmark does not
 * sign its webhooks; it documents Basic auth credentials in the webhook URL
 * (`https://user:password@host/webhooks/email/postmark`) as the way to know the caller, which is
 * what we check (POSTMARK_WEBHOOK_USERNAME / _PASSWORD).
 */
export const postmarkEventSchema = z.looseObject({
  RecordType: z.string().min(1),
  ID: z.union([z.number(), z.string()]).optional(),
  Type: z.string().optional(),
  MessageID: z.string().min(1),
  Description: z.string().nullish(),
  Details: z.string().nullish(),
  Content: z.string().nullish(),
  BouncedAt: z.string().nullish(),
  Metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type PostmarkEvent = z.infer<typeof postmarkEventSchema>;

/**
 * Postmark's bounce types (its `BounceType` list) by what they mean for the send. `Transient`,
 * `SoftBounce` and `DnsError` are retried by Postmark; the others here mean the address is dead
 * (Postmark deactivates it) or Postmark refuses to send to it.
 */
const BOUNCE_KINDS: Record<string, EmailEventKind> = {
  HardBounce: 'hard_bounce',
  BadEmailAddress: 'hard_bounce',
  Blocked: 'hard_bounce',
  DMARCPolicy: 'hard_bounce',
  SpamNotification: 'complaint',
  SpamComplaint: 'complaint',
  ManuallyDeactivated: 'dropped',
  Transient: 'soft_bounce',
  SoftBounce: 'soft_bounce',
  DnsError: 'soft_bounce',
};

export function postmarkEvent(body: PostmarkEvent): EmailProviderEvent {
  const type = body.RecordType === 'Bounce' ? (body.Type ?? 'Unknown') : body.RecordType;
  const kind: EmailEventKind =
    body.RecordType === 'SpamComplaint'
      ? 'complaint'
      : body.RecordType === 'Bounce'
        ? (BOUNCE_KINDS[type] ?? 'other')
        : 'other';
  return {
    provider: 'postmark',
    // Bounce and complaint records have their own ID; other records (Delivery, Open…) are one per message and type.
    eventKey: body.ID !== undefined ? `${body.RecordType}:${body.ID}` : `${body.RecordType}:${body.MessageID}`,
    kind,
    providerType: type,
    reason: shortReason(body.Details || body.Description),
    messageIdHeader: messageIdIn(body.Content),
    providerMessageId: body.MessageID,
    sendId: sendIdOf(body.Metadata),
  };
}

/**
 * The send id we attached as metadata; anything else there (another system's keys) is ignored. The
 * key is matched without case: header names have none, and nodemailer writes `X-Pm-Metadata-Doorstep_send_id`.
 */
function sendIdOf(metadata: Record<string, unknown> | null | undefined): string | null {
  const entry = Object.entries(metadata ?? {}).find(([key]) => key.toLowerCase() === SEND_ID_METADATA_KEY);
  return typeof entry?.[1] === 'string' ? sendIdFromMessageId(`<${entry[1]}@doorstep>`) : null;
}
