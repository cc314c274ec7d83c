import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { maskAddress } from './masked-address.ts';
import type { Logger } from '../logger.ts';
import { PermanentSendError } from './errors.ts';
import { DEFAULT_SMTP_MAX_CONNECTIONS } from './send-policy.ts';
import { SEND_ID_METADATA_KEY, sendIdFromMessageId } from './email-events/email-event-kinds.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Stable per send: a retry after an unknown outcome carries the same Message-ID, which lets mail systems drop the duplicate. */
  messageId: string;
  /**
   * The name the message is from (the store's): `"Maple & Thread" <EMAIL_FROM's address>`. The
   * address stays ours (it is the one SPF and DKIM vouch for); absent, EMAIL_FROM as it is.
   */
  fromName?: string;
  /** Where a reply goes (the store's contact address), when it has one. */
  replyTo?: string;
}

export interface EmailChannel {
  /** Resolves when the provider accepted the message; throws PermanentSendError when it never will. */
  send(message: EmailMessage): Promise<{ providerMessageId: string }>;
  /** Closes the channel's open connections (a pooled SMTP transport) at shutdown; a message in flight finishes first. */
  close?(): void;
}

/**
 * E-mail over SMTP (nodemailer) when SMTP_URL is set; otherwise the embedded default writes each
 * message as an .eml file to the outbox directory and logs its path.
 *
 * The SMTP transport is nodemailer's pool (nodemailer.com/smtp/pooled): up to `maxConnections`
 * connections stay open and carry up to 100 messages each, so a backlog is not one TCP connection,
 * greeting and EHLO per e-mail. The dispatcher hands it at most that many messages at once, so none
 * waits in the pool's own queue.
 */
export function createEmailChannel(options: {
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
  /** SMTP_MAX_CONNECTIONS; default DEFAULT_SMTP_MAX_CONNECTIONS. */
  maxConnections?: number;
}): EmailChannel {
  const outbox = !options.smtpUrl;
  const fromAddress = addressparser(options.from, { flatten: true })[0]?.address ?? options.from;
  const transport: Transporter = outbox
    ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
    : // Bounded waits: a hung SMTP server must fail the attempt well inside the reconciler's 5-minute
      // "stuck in sending" limit, so a live send is never declared uncertain.
      nodemailer.createTransport({
        url: options.smtpUrl,
        pool: true,
        maxConnections: options.maxConnections ?? DEFAULT_SMTP_MAX_CONNECTIONS,
        maxMessages: 100,
        // A pooled connection the server dropped just as a message was handed to it (an idle
        // timeout on its side) is tried once more on a fresh connection. Not more: each try may
        // take the waits above, and two stay inside the 5-minute limit. Anything else is an
        // attempt that failed, and the dispatcher's backoff decides.
        maxRequeues: 1,
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
      } as SMTPPool.Options);
  return {
    close: () => transport.close(),
    async send(message) {
      let info: { messageId: string; message?: unknown; response?: string };
      try {
        info = await transport.sendMail({
          // nodemailer encodes the name (quotes, non-ASCII) for the header.
          from: message.fromName ? { name: message.fromName, address: fromAddress } : options.from,
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: message.messageId,
          ...metadataHeaders(message.messageId),
        });
      } catch (error) {
        throw classifySmtpError(error);
      }
      if (outbox) {
        // Only this process's user may read them: they hold capability URLs and addresses.
        fs.mkdirSync(options.outboxDir, { recursive: true, mode: 0o700 });
        const file = path.join(
          options.outboxDir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.messageId.replace(/[^A-Za-z0-9_-]/g, '')}.eml`,
        );
        fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
        options.logger.info({ file: path.basename(file), to: maskAddress(message.to) }, 'e-mail written to the outbox');
      }
      return { providerMessageId: serverMessageId(info.response) ?? info.messageId };
    },
  };
}

/**
 * The id the SMTP server gave the message in its final answer, when it names one: providers' bounce
 * events carry it (Postmark's `MessageID`, SendGrid's `sg_message_id`), and not every event carries
 * our Message-ID. Postfix-style servers, SendGrid and Postmark answer `250 … queued as <id>`; Amazon
 * SES answers `250 Ok <id>`. Otherwise our own Message-ID stands.
 */
export function serverMessageId(response: string | undefined): string | null {
  const text = response ?? '';
  const queued = /\bqueued as\s+<?([A-Za-z0-9._@-]+?)>?\s*$/i.exec(text);
  if (queued) return queued[1]!;
  const ses = /^250 Ok ([0-9a-f]{16}-[0-9a-f-]{20,})$/i.exec(text.trim());
  return ses?.[1] ?? null;
}

/** SMTP 5xx is a final "no" (RFC 5321 §4.2.1); 4xx and connection problems are worth retrying. */
function classifySmtpError(error: unknown): Error {
  const responseCode = (error as { responseCode?: number }).responseCode;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600) {
    return new PermanentSendError(`The mail server refused the message (${responseCode}): ${message}`);
  }
  return error instanceof Error ? error : new Error(message);
}

/** The send id as provider metadata (see SEND_ID_METADATA_KEY), when the message is one of our sends. */
function metadataHeaders(messageId: string): { headers?: Record<string, string> } {
  const sendId = sendIdFromMessageId(messageId);
  return sendId ? { headers: { [`X-PM-Metadata-${SEND_ID_METADATA_KEY}`]: sendId } } : {};
}
