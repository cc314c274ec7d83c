import type { EmailProvider } from '../../vocabulary.ts';

/**
 * What an e-mail provider's event means to us, whatever the provider's words:
 * - `hard_bounce`: the recipient's server refused for good (no such mailbox, domain…);
 * - `complaint`: the recipient marked it as spam;
 * - `dropped`: the provider would not even try (a suppressed address);
 * - `soft_bounce`: a temporary refusal or deferral; the provider keeps trying;
 * - `other`: deliveries, opens, clicks, anything else: kept for the record.
 */
export type EmailEventKind = 'hard_bounce' | 'complaint' | 'dropped' | 'soft_bounce' | 'other';

/** One provider event, read once when it arrives (stored beside the raw body in `email_events.event`). */
export interface EmailProviderEvent {
  provider: EmailProvider;
  /** The provider's event id (dedupe key). */
  eventKey: string;
  kind: EmailEventKind;
  /** The provider's own name for it (`HardBounce`, `Permanent/General`, `bounce/blocked`…). */
  providerType: string;
  /** The mail server's words, addresses removed (`shortReason`); null when the provider gave none. */
  reason: string | null;
  /** The original `Message-ID` header when the event carries it (`<snd_…@doorstep>` for ours). */
  messageIdHeader: string | null;
  /** The provider's own id of the message (what its SMTP server answered when it took it). */
  providerMessageId: string | null;
  /** Our send id, when the provider echoes the metadata we attach to every e-mail (Postmark). */
  sendId?: string | null;
}

/**
 * Postmark keeps `X-PM-Metadata-<key>` headers of a message sent over its SMTP server and returns
 * them as `Metadata` in its webhooks: the surest way back to the send, whatever ids its SMTP answer
 * or the bounce dump carry. Other servers pass the header through unread.
 */
export const SEND_ID_METADATA_KEY = 'doorstep_send_id';

/** Only these fail the send: the message will never reach the address. Soft bounces are the provider's to retry. */
export function failsTheSend(kind: EmailEventKind): boolean {
  return kind === 'hard_bounce' || kind === 'complaint' || kind === 'dropped';
}

/** Our Message-ID is `<{send id}@doorstep>` (dispatcher.ts): the send it names, or null for anyone else's. */
export function sendIdFromMessageId(header: string | null): string | null {
  const match = /^\s*<?(snd_[0-9a-f]{24})@doorstep>?\s*$/.exec(header ?? '');
  return match?.[1] ?? null;
}

const ADDRESS = /[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g;
const MAX_REASON = 200;

/**
 * A bounce reason fit for the timeline: mail servers quote the address they refused
 * (`550 5.1.1 <bob@example.com>: Recipient address rejected`), and the timeline holds no personal
 * data, so addresses become "[address]"; one line, at most 200 characters.
 */
export function shortReason(reason: string | null | undefined): string | null {
  const text = (reason ?? '').replace(ADDRESS, '[address]').replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

/** The `Message-ID` header in a raw message or header dump (Postmark's bounce `Content`). */
export function messageIdIn(raw: string | null | undefined): string | null {
  const match = /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(raw ?? '');
  return match?.[1] ?? null;
}
