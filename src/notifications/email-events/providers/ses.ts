import { createVerify, X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { shortReason, type EmailEventKind, type EmailProviderEvent } from '../email-event-kinds.ts';

/**
 * Amazon SES bounce and complaint notifications, delivered by Amazon SNS to an HTTP(S) subscription
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html and
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html). SNS signs every message
 * (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) with the certificate at `SigningCertURL`, which
 * must be an Amazon SNS host (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
 * A valid signature only proves SNS sent it; the topic must also be ours (SES_SNS_TOPIC_ARNS).
 */
export const snsEnvelopeSchema = z.looseObject({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: z.string().min(1),
  TopicArn: z.string().min(1),
  Message: z.string(),
  Timestamp: z.string().min(1),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string().min(1),
  SigningCertURL: z.string().min(1),
  Subject: z.string().nullish(),
  Token: z.string().nullish(),
  SubscribeURL: z.string().nullish(),
});
export type SnsEnvelope = z.infer<typeof snsEnvelopeSchema>;

/** The fields SNS signs, in its documented order, for each message type. */
export function snsStringToSign(envelope: SnsEnvelope): string {
  const fields =
    envelope.Type === 'Notification'
      ? ['Message', 'MessageId', ...(envelope.Subject != null ? ['Subject'] : []), 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return fields.map((name) => `${name}\n${String((envelope as Record<string, unknown>)[name] ?? '')}\n`).join('');
}

/**
 * Which certificate (and subscribe) URLs are Amazon's. Each allowed entry is a host pattern, `*`
 * standing for one AWS region name (`sns.*.amazonaws.com`, the default: `sns.us-east-1.amazonaws.com`),
 * reached over https only; or a full origin (`http://127.0.0.1:4566`) for a local stand-in such as the
 * tests' fake. A region, not any label: `sns.s3.amazonaws.com` is an S3 bucket's host, which anyone
 * may own, and its certificate would sign forged bounces.
 */
/** `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`… */
const AWS_REGION_LABEL = '[a-z]{2}(?:-[a-z]+)+-[0-9]+';

export function snsUrlAllowed(url: string, allowed: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return allowed.some((entry) => {
    if (entry.includes('://')) return parsed.origin === new URL(entry).origin;
    if (parsed.protocol !== 'https:' || parsed.port !== '') return false;
    const pattern = new RegExp(
      `^${entry
        .split('.')
        .map((label) => (label === '*' ? AWS_REGION_LABEL : label.replace(/[^a-z0-9-]/gi, '\\$&')))
        .join('\\.')}$`,
      'i',
    );
    return pattern.test(parsed.hostname);
  });
}

/** Fetches signing certificates once per URL (SNS rotates them rarely; each is a fixed URL). */
export class SnsCertificates {
  private readonly cache = new Map<string, Promise<string>>();

  constructor(private readonly allowed: readonly string[]) {}

  async verify(envelope: SnsEnvelope): Promise<boolean> {
    if (!snsUrlAllowed(envelope.SigningCertURL, this.allowed)) return false;
    let pem: string;
    try {
      pem = await this.certificate(envelope.SigningCertURL);
    } catch {
      return false;
    }
    const verifier = createVerify(envelope.SignatureVersion === '2' ? 'RSA-SHA256' : 'RSA-SHA1');
    verifier.update(snsStringToSign(envelope), 'utf8');
    try {
      return verifier.verify(pem, envelope.Signature, 'base64');
    } catch {
      return false;
    }
  }

  private certificate(url: string): Promise<string> {
    let pending = this.cache.get(url);
    if (!pending) {
      pending = fetchCertificate(url);
      this.cache.set(url, pending);
      // A failed fetch is not kept: the next message tries again.
      pending.catch(() => this.cache.delete(url));
    }
    return pending;
  }
}

async function fetchCertificate(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`signing certificate answered ${response.status}`);
  const pem = await response.text();
  const certificate = new X509Certificate(pem);
  const now = Date.now();
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
    throw new Error('signing certificate is not valid now');
  return pem;
}

/** SES's notification (the SNS `Message`), as far as we read it. Event publishing names its type `eventType`. */
const sesNotificationSchema = z.looseObject({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  mail: z.looseObject({
    messageId: z.string().min(1),
    headers: z.array(z.looseObject({ name: z.string(), value: z.string() })).optional(),
    commonHeaders: z.looseObject({ messageId: z.string().optional() }).optional(),
  }),
  bounce: z
    .looseObject({
      bounceType: z.string(),
      bounceSubType: z.string().optional(),
      bouncedRecipients: z.array(z.looseObject({ diagnosticCode: z.string().optional() })).optional(),
    })
    .optional(),
  complaint: z.looseObject({ complaintFeedbackType: z.string().optional() }).optional(),
});

/** The SES notification inside an SNS Notification; throws (a ZodError or SyntaxError) when it is not one. */
export function sesEvent(envelope: SnsEnvelope): EmailProviderEvent {
  const message = sesNotificationSchema.parse(JSON.parse(envelope.Message));
  const type = message.notificationType ?? message.eventType ?? 'Unknown';
  const header =
    message.mail.commonHeaders?.messageId ??
    message.mail.headers?.find((h) => h.name.toLowerCase() === 'message-id')?.value ??
    null;
  let kind: EmailEventKind = 'other';
  let providerType = type;
  let reason: string | null = null;
  if (type === 'Bounce' && message.bounce) {
    const { bounceType, bounceSubType } = message.bounce;
    providerType = `${bounceType}/${bounceSubType ?? 'General'}`;
    // Permanent: the address is dead, or SES's suppression list holds it (it never tried: dropped).
    // Transient and Undetermined: SES may still deliver; recorded only.
    kind =
      bounceType === 'Permanent'
        ? bounceSubType === 'Suppressed' || bounceSubType === 'OnAccountSuppressionList'
          ? 'dropped'
          : 'hard_bounce'
        : 'soft_bounce';
    reason = shortReason(message.bounce.bouncedRecipients?.[0]?.diagnosticCode ?? bounceSubType);
  } else if (type === 'Complaint') {
    kind = 'complaint';
    providerType = `Complaint/${message.complaint?.complaintFeedbackType ?? 'unspecified'}`;
  }
  return {
    provider: 'ses',
    eventKey: envelope.MessageId,
    kind,
    providerType,
    reason,
    messageIdHeader: header,
    providerMessageId: message.mail.messageId,
  };
}
