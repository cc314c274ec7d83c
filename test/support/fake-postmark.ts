import { randomInt } from 'node:crypto';

/**
 * Posts Postmark's outbound webhook records as Postmark does
 * (https://postmarkapp.com/developer/webhooks/bounce-webhook, spam-complaint-webhook): one JSON
 * record per POST, with the Basic credentials Postmark takes from the webhook URL
 * (`https://user:password@host/…`) in the Authorization header.
 */
export function fakePostmark(credentials: { username: string; password: string }) {
  const post = async (
    webhookUrl: string,
    record: unknown,
    options: { authorization?: string; rawBody?: string } = {},
  ) => {
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization:
          options.authorization ??
          `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
      },
      body: options.rawBody ?? JSON.stringify(record),
    });
    return { status: response.status, body: (await response.json().catch(() => undefined)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  };
  return {
    post,
    /** A bounce record, as the documentation's example (the fields our side does not read included). */
    bounce(message: { messageId: string; email: string; type?: string; typeCode?: number; details?: string }) {
      return {
        RecordType: 'Bounce',
        MessageStream: 'outbound',
        ID: randomInt(1, 2 ** 40),
        Type: message.type ?? 'HardBounce',
        TypeCode: message.typeCode ?? 1,
        Name: message.type === 'SoftBounce' ? 'Soft bounce' : 'Hard bounce',
        Tag: '',
        MessageID: message.messageId,
        Metadata: {},
        ServerID: 23,
        Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
        Details:
          message.details ??
          `smtp;550 5.1.1 The email account that you tried to reach does not exist: <${message.email}>`,
        Email: message.email,
        From: 'no-reply@doorstep.test',
        BouncedAt: new Date().toISOString(),
        DumpAvailable: true,
        Inactive: true,
        CanActivate: true,
        Subject: 'A video message for you',
      };
    },
    spamComplaint(message: { messageId: string; email: string }) {
      return {
        RecordType: 'SpamComplaint',
        MessageStream: 'outbound',
        ID: randomInt(1, 2 ** 40),
        Type: 'SpamComplaint',
        TypeCode: 512,
        Name: 'Spam complaint',
        Tag: '',
        MessageID: message.messageId,
        Metadata: {},
        ServerID: 23,
        Description: 'The subscriber explicitly marked this message as spam.',
        Details: 'Test spam complaint details',
        Email: message.email,
        From: 'no-reply@doorstep.test',
        BouncedAt: new Date().toISOString(),
        DumpAvailable: true,
        Inactive: true,
        CanActivate: false,
        Subject: 'A video message for you',
      };
    },
  };
}
