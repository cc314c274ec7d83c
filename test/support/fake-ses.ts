import { generateKeyPairSync, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { snsStringToSign, type SnsEnvelope } from '../../src/notifications/email-events/providers/ses.ts';

/**
 * Amazon SES's bounce and complaint notifications as Amazon SNS delivers them to an HTTP subscriber
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html), signed as SNS signs
 * (SignatureVersion 2, SHA256withRSA) with a key and self-signed certificate made at start. A local
 * HTTP server plays SNS's side: it serves the signing certificate (what `sns.<region>.amazonaws.com`
 * serves) and records subscription confirmations (the SubscribeURL).
 */
export async function startFakeSes() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certificate = selfSignedCertificate(publicKey, privateKey, 'sns.fake.amazonaws.test');
  const confirmations: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/SimpleNotificationService-fake.pem') {
      res.writeHead(200, { 'Content-Type': 'application/x-pem-file' }).end(certificate);
      return;
    }
    if (req.url?.startsWith('/?Action=ConfirmSubscription')) {
      confirmations.push(new URL(req.url, 'http://x').searchParams.get('Token') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:doorstep-ses-events';

  /** An SNS message signed with our key (or `signWith`), as SNS posts it. */
  const envelope = (
    fields: Pick<SnsEnvelope, 'Type' | 'Message'> & Partial<SnsEnvelope>,
    signWith: KeyObject = privateKey,
  ): SnsEnvelope => {
    const unsigned = {
      MessageId: randomUUID(),
      TopicArn: topicArn,
      Timestamp: new Date().toISOString(),
      SignatureVersion: '2' as const,
      SigningCertURL: `${origin}/SimpleNotificationService-fake.pem`,
      Signature: '',
      ...fields,
    } as SnsEnvelope;
    return {
      ...unsigned,
      Signature: sign('sha256', Buffer.from(snsStringToSign(unsigned)), signWith).toString('base64'),
    };
  };

  return {
    origin,
    topicArn,
    confirmations,
    envelope,
    strangerKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    async post(webhookUrl: string, message: SnsEnvelope | string) {
      const body = typeof message === 'string' ? message : JSON.stringify(message);
      const type = typeof message === 'string' ? 'Notification' : message.Type;
      const response = await fetch(webhookUrl, {
        method: 'POST',
        // SNS posts JSON as text/plain, with its own headers.
        headers: { 'Content-Type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': type },
        body,
      });
      return { status: response.status, body: (await response.json().catch(() => undefined)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
    },
    subscriptionConfirmation(token: string = randomUUID()) {
      return envelope({
        Type: 'SubscriptionConfirmation',
        Token: token,
        Message: `You have chosen to subscribe to the topic ${topicArn}.`,
        SubscribeURL: `${origin}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}`,
      });
    },
    /** An SES bounce notification (notification-contents.html, "Bounce object"). */
    bounce(mail: { sesMessageId: string; messageIdHeader: string; email: string; bounceType?: string }) {
      return envelope({
        Type: 'Notification',
        Message: JSON.stringify({
          notificationType: 'Bounce',
          bounce: {
            bounceType: mail.bounceType ?? 'Permanent',
            bounceSubType: mail.bounceType === 'Transient' ? 'MailboxFull' : 'General',
            bouncedRecipients: [
              {
                emailAddress: mail.email,
                action: 'failed',
                status: '5.1.1',
                diagnosticCode: `smtp; 550 5.1.1 <${mail.email}>... User unknown`,
              },
            ],
            timestamp: new Date().toISOString(),
            feedbackId: `${randomUUID()}-000000`,
            reportingMTA: 'dsn; a8-70.smtp-out.amazonses.com',
          },
          mail: sesMail(mail),
        }),
      });
    },
    complaint(mail: { sesMessageId: string; messageIdHeader: string; email: string }) {
      return envelope({
        Type: 'Notification',
        Message: JSON.stringify({
          notificationType: 'Complaint',
          complaint: {
            complainedRecipients: [{ emailAddress: mail.email }],
            timestamp: new Date().toISOString(),
            feedbackId: `${randomUUID()}-000000`,
            complaintFeedbackType: 'abuse',
          },
          mail: sesMail(mail),
        }),
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function sesMail(mail: { sesMessageId: string; messageIdHeader: string; email: string }) {
  return {
    timestamp: new Date().toISOString(),
    source: 'no-reply@doorstep.test',
    sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/doorstep.test',
    sendingAccountId: '123456789012',
    messageId: mail.sesMessageId,
    destination: [mail.email],
    headersTruncated: false,
    headers: [{ name: 'Message-ID', value: mail.messageIdHeader }],
    commonHeaders: { from: ['no-reply@doorstep.test'], to: [mail.email], messageId: mail.messageIdHeader },
  };
}

/*
 * A minimal X.509 v3 certificate in DER (RFC 5280 §4.1), self-signed with SHA256withRSA: node:crypto
 * makes keys and checks certificates but does not make them, and SNS hands out a certificate, not a key.
 */
function selfSignedCertificate(publicKey: KeyObject, privateKey: KeyObject, commonName: string): string {
  const algorithm = seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName)))));
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(Buffer.from(randomUUID().replace(/-/g, '').slice(0, 16), 'hex')),
    algorithm,
    name,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ format: 'der', type: 'spki' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const pem = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(pem); // throws if the encoding above is wrong
  return pem;
}

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}
const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const integer = (value: Buffer) => tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
const utcTime = (date: Date) => tlv(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));
function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const value of rest) {
    const chunk: number[] = [value & 0x7f];
    for (let n = value >> 7; n > 0; n >>= 7) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}
