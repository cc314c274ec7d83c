import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * Posts SendGrid Event Webhook batches signed as the Signed Event Webhook signs them
 * (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features):
 * ECDSA P-256 over `timestamp + body`, base64 DER in `X-Twilio-Email-Event-Webhook-Signature`.
 * The key pair is made here; `publicKey` is what SendGrid would show (base64 DER), for
 * SENDGRID_WEBHOOK_PUBLIC_KEY.
 */
export function fakeSendgrid() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const post = async (
    webhookUrl: string,
    events: unknown,
    options: { signWith?: typeof privateKey; tamper?: boolean; rawBody?: string } = {},
  ) => {
    const body = options.rawBody ?? JSON.stringify(events);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = sign('sha256', Buffer.from(timestamp + body), options.signWith ?? privateKey).toString('base64');
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Twilio-Email-Event-Webhook-Signature': signature,
        'X-Twilio-Email-Event-Webhook-Timestamp': timestamp,
      },
      // A tampered batch: signed, then changed on the way.
      body: options.tamper ? body.replace('"bounce"', '"delivered"') : body,
    });
    return { status: response.status, body: (await response.json().catch(() => undefined)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  };
  const base = (message: { smtpId: string; email: string }) => ({
    email: message.email,
    timestamp: Math.floor(Date.now() / 1000),
    'smtp-id': message.smtpId,
    sg_event_id: randomBytes(16).toString('base64url'),
    sg_message_id: `${randomBytes(8).toString('hex')}.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0`,
    category: ['gift'],
  });
  return {
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    /** Another key pair's private key: a signature SendGrid did not make. */
    strangerKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey,
    post,
    bounce: (message: { smtpId: string; email: string }) => ({
      ...base(message),
      event: 'bounce',
      reason: `550 5.1.1 <${message.email}>: Recipient address rejected: User unknown`,
      status: '5.1.1',
      type: 'bounce',
      bounce_classification: 'Invalid Address',
    }),
    deferred: (message: { smtpId: string; email: string }) => ({
      ...base(message),
      event: 'deferred',
      response: '400 try again later',
      attempt: '5',
    }),
    delivered: (message: { smtpId: string; email: string }) => ({
      ...base(message),
      event: 'delivered',
      response: '250 OK',
    }),
  };
}
