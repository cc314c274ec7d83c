import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Date.now() when the message was accepted: latency measurements read this, not the poll that found it. */
  receivedAt: number;
}

/**
 * A real SMTP server (the smtp-server library) in-process. `rejectRecipients` answers RCPT TO
 * with the given code for matching addresses, to test permanent (550) and temporary (451) refusals.
 */
export async function startMailServer(): Promise<{
  url: string;
  messages: ReceivedMail[];
  rejectRecipient(address: string, code: number, times?: number): void;
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  const rejections = new Map<string, { code: number; times: number }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
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
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rejectRecipient: (address, code, times = Infinity) => rejections.set(address, { code, times }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
