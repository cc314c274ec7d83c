import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Date.now() when the message was accepted: latency measurements read this, not the poll that found it. */
  receivedAt: number;
  /**
   * The id this server gave the message in its answer (`250 OK: queued as <id>`, as Postfix, Postmark
   * and SendGrid answer): what the e-mail channel records as the provider's message id.
   */
  queueId: string;
}

/** A message whose SMTP answer is held back: the sender waits mid-send until `release()`. */
export interface HeldMessage {
  /** Resolves when the message's data has arrived (the sender now waits for our answer). */
  arrived: Promise<void>;
  /** Accepts it (250): it joins `messages` and the sender's call returns. */
  release(): void;
}

/**
 * A real SMTP server (the smtp-server library) in-process. `rejectRecipients` answers RCPT TO
 * with the given code for matching addresses, to test permanent (550) and temporary (451) refusals;
 * `holdMessageTo` keeps the next message to an address unanswered, to hold a send in flight.
 * `port` listens on a chosen port (an SMTP_URL that refused connections until now); default a free one.
 */
export async function startMailServer(options: { port?: number } = {}): Promise<{
  url: string;
  messages: ReceivedMail[];
  rejectRecipient(address: string, code: number, times?: number): void;
  holdMessageTo(address: string): HeldMessage;
  /** How many SMTP connections clients have opened so far (a pooled client reuses a few). */
  connectionCount(): number;
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  let connections = 0;
  const rejections = new Map<string, { code: number; times: number }>();
  const holds = new Map<string, { arrived(): void; released: Promise<void> }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A pooled client keeps idle connections open; closing ends them (421) instead of waiting 30 s.
    closeTimeout: 200,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const rule = rejections.get(address.address);
      if (rule && rule.times > 0) {
        rule.times--;
        const error = new Error(`Recipient ${address.address} refused`) as Error & { responseCode: number };
        error.responseCode = rule.code;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        const accept = () => {
          const queueId = randomUUID();
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to,
            raw: Buffer.concat(chunks).toString('utf8'),
            receivedAt: Date.now(),
            queueId,
          });
          callback(null, `OK: queued as ${queueId}`);
        };
        const address = to.find((a) => holds.has(a));
        const hold = address === undefined ? undefined : holds.get(address);
        if (!hold) return accept();
        holds.delete(address!);
        hold.arrived();
        void hold.released.then(accept);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rejectRecipient: (address, code, times = Infinity) => rejections.set(address, { code, times }),
    connectionCount: () => connections,
    holdMessageTo(address) {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(address, { arrived, released });
      return { arrived: arrival, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A message's text with quoted-printable undone (soft line breaks, `=XX` escapes), to look for a link in. */
export function decodedMail(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
