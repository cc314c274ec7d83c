import fs from 'node:fs';
import path from 'node:path';
import { maskAddress } from './masked-address.ts';
import type { Logger } from '../logger.ts';
import { PermanentSendError } from './errors.ts';

export interface SmsChannel {
  send(message: { to: string; body: string; reference: string }): Promise<{ providerMessageId: string }>;
}

export interface SmsProviderConfig {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
}

/**
 * Twilio error codes that mean this number will never take the message (twilio.com/docs/api/errors):
 * 21211 invalid 'To', 21214 not reachable, 21610 recipient unsubscribed, 21612/21408 cannot route,
 * 21614 not a mobile number.
 */
const PERMANENT_TWILIO_CODES = new Set([21211, 21214, 21408, 21610, 21612, 21614]);

/**
 * SMS through a Twilio-compatible REST API (`POST /2010-04-01/Accounts/{sid}/Messages.json`, form
 * body, Basic auth). Without SMS_* config the embedded default writes each message to the outbox.
 */
export function createSmsChannel(options: {
  provider: SmsProviderConfig | null;
  outboxDir: string;
  logger: Logger;
  timeoutMs?: number;
}): SmsChannel {
  const { provider } = options;
  if (!provider) {
    return {
      async send(message) {
        // Only this process's user may read them: they hold capability URLs and phone numbers.
        fs.mkdirSync(options.outboxDir, { recursive: true, mode: 0o700 });
        const file = path.join(
          options.outboxDir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.reference}.sms.txt`,
        );
        fs.writeFileSync(file, `To: ${message.to}\n\n${message.body}\n`, { mode: 0o600 });
        options.logger.info({ file: path.basename(file), to: maskAddress(message.to) }, 'SMS written to the outbox');
        return { providerMessageId: `outbox-${message.reference}` };
      },
    };
  }
  const url = `${provider.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(provider.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${provider.accountSid}:${provider.authToken}`).toString('base64')}`;
  return {
    async send(message) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ To: message.to, From: provider.from, Body: message.body }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const body = (await response.json().catch(() => ({}))) as { sid?: string; code?: number; message?: string };
      if (response.ok && body.sid) return { providerMessageId: body.sid };
      const detail = `SMS provider answered ${response.status}${body.code ? ` (code ${body.code})` : ''}: ${body.message ?? 'no message'}`;
      if (response.status === 400 && body.code !== undefined && PERMANENT_TWILIO_CODES.has(body.code))
        throw new PermanentSendError(detail);
      throw new Error(detail);
    },
  };
}
