import type { EmailEventKind } from './email-event-kinds.ts';

/**
 * Every sentence the bounce work shows the merchant (the timeline and admin, the API's `last_error`
 * and 409s), in one place. English, like the admin (src/shopify/admin/timeline-words.ts): these are
 * stored and read by the store, not by the sender or recipient. The sender's e-mail is a template
 * whose words are the catalogue's `email_bounce_…` phrases, in the store's language.
 */
export const BOUNCE_PHRASES = {
  /** `sends.last_error` and the admin's "needs attention" reason after a bounce. */
  lastError: (kind: EmailEventKind, reason: string | null) =>
    `${KIND_WORDS[kind] ?? 'the e-mail did not arrive'}${reason ? ` (${reason})` : ''}`,
  /** The admin timeline's title of a `send.bounced` entry. */
  timelineTitle: (kind: unknown) =>
    kind === 'complaint'
      ? 'The recipient marked the e-mail as spam'
      : kind === 'dropped'
        ? 'The e-mail provider would not deliver the e-mail'
        : "The e-mail bounced: the recipient's mail server refused it",
  /** The admin timeline's next step after the recipient's video bounced (`senderTold`: the sender was e-mailed). */
  timelineNext: (senderTold: boolean) =>
    `${senderTold ? 'The sender was told. ' : ''}Resend to send it by SMS (when the order has the recipient's phone) or to a corrected e-mail address.`,
  /** Resend refused: the e-mail went to the current address and bounced, and there is no phone. */
  resendRefusedBounced:
    "The e-mail to the recipient's address bounced, so it is not sent there again. Correct the recipient's e-mail, or add their phone number to send the video by SMS.",
} as const;

const KIND_WORDS: Partial<Record<EmailEventKind, string>> = {
  hard_bounce: "the e-mail bounced: the recipient's mail server refused it",
  complaint: 'the recipient marked the e-mail as spam',
  dropped: 'the e-mail provider would not deliver to this address',
};
