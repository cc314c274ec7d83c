import fs from 'node:fs';
import path from 'node:path';
import { maskAddress } from './masked-address.ts';
import type { Logger } from '../logger.ts';
import { PermanentSendError } from './errors.ts';

export interface SmsChannel {
  send(message: { to: string; body: string; reference: string }): Promise<{ providerMessageId: string }>;
  /**
   * Asks the provider what became of a message whose sending process died mid-call (an `uncertain`
   * send); absent when nothing can be asked (the outbox). Throws when the provider cannot be reached.
   */
  lookup?(query: SmsLookupQuery): Promise<SmsLookup>;
}

/** Which message we look for: to this number, created by the provider within this window, carrying `marker` in its body. */
export interface SmsLookupQuery {
  to: string;
  createdAfter: Date;
  createdBefore: Date;
  /** Text only our message carries (the recipient's playback link); null when our message has none. */
  marker: string | null;
}

/**
 * What the provider said: it has our message (`found`); it has no message at all to that number in
 * the window (`absent`: the call never reached it); or it cannot tell (`unclear`: other messages to
 * that number in the window, or more than one page of them), which is never guessed at.
 */
export type SmsLookup =
  { kind: 'found'; providerMessageId: string; status: string } | { kind: 'absent' } | { kind: 'unclear'; why: string };

/** One page of Twilio's Message list, newest first; more than this is `unclear`, not followed. */
const LOOKUP_PAGE_SIZE = 50;

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

    /**
     * Twilio has no idempotency key or client reference on a Message, and no status API by anything
     * but its own SID (which a call that died never returned). What it does have is the Message list
     * (`GET …/Messages.json?To=…&From=…&PageSize=…`, newest first, each with `date_created` and
     * `body`): a message of ours is one to that number from our number, created while our call was
     * open, whose body holds our marker. No message at all to that number in that window means the
     * call never reached Twilio (a message resource exists from the moment Twilio takes the request).
     */
    async lookup(query) {
      const params = new URLSearchParams({ To: query.to, From: provider.from, PageSize: String(LOOKUP_PAGE_SIZE) });
      const response = await fetch(`${url}?${params}`, {
        headers: { Authorization: authorization },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!response.ok) throw new Error(`SMS provider answered ${response.status} to the message list`);
      const page = (await response.json()) as {
        messages?: Array<{ sid?: string; body?: string; status?: string; date_created?: string }>;
        next_page_uri?: string | null;
      };
      if (!Array.isArray(page.messages)) throw new Error('SMS provider answered the message list without messages');
      const inWindow = page.messages.filter((message) => {
        const created = Date.parse(message.date_created ?? '');
        return created >= query.createdAfter.getTime() && created <= query.createdBefore.getTime();
      });
      const ours = query.marker
        ? inWindow.find((message) => message.sid && (message.body ?? '').includes(query.marker!))
        : undefined;
      if (ours) return { kind: 'found', providerMessageId: ours.sid!, status: ours.status ?? 'unknown' };
      // The page must reach back past the window for "none in it" to mean anything.
      const oldest = Math.min(...page.messages.map((message) => Date.parse(message.date_created ?? '')));
      const complete =
        page.messages.length < LOOKUP_PAGE_SIZE || !page.next_page_uri || oldest < query.createdAfter.getTime();
      if (!complete) return { kind: 'unclear', why: 'the provider lists more messages to that number than one page' };
      if (inWindow.length > 0)
        return { kind: 'unclear', why: 'the provider has a message to that number from then that is not clearly ours' };
      return { kind: 'absent' };
    },
  };
}
