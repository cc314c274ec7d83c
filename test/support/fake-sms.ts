import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentSms {
  to: string;
  from: string;
  body: string;
  /** When the fake took it, on the fake's clock (its `date_created`). */
  createdAt?: Date;
}

/** One request to the Messages endpoint: when it came and what it was answered. */
export interface SmsAttempt {
  to: string;
  at: number;
  status: number;
}

/**
 * A local stand-in for Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`,
 * form-encoded, Basic auth), answering in Twilio's documented shapes: 201 with a message resource,
 * 400 with `{code, message, status}` for an invalid number (code 21211), 401 for bad credentials.
 * `failWith(500)` makes every message request answer that status (an outage) until `failWith(null)`;
 * `attempts` lists every message request with its time and answer. `GET …/Messages.json` is Twilio's
 * Message list (filtered by `To` and `From`, newest first, `PageSize` per page, `date_created` in
 * RFC 2822), over every message taken since start — `messages` may be cleared by a test, this is not.
 * `now` is the fake's clock (the app's test clock, as if the two were in sync).
 * `hold('taken')` takes each new message and never answers (the sender dies waiting, the message
 * goes out); `hold('dropped')` never answers and never takes it (the message is lost with the
 * sender); `hold(null)` answers again. `held()` counts the calls left hanging.
 */
export async function startFakeSmsApi(
  credentials = { sid: 'AC_test', token: 'secret' },
  options: { now?: () => Date } = {},
) {
  const now = options.now ?? (() => new Date());
  const messages: SentSms[] = [];
  const taken: Array<SentSms & { sid: string; createdAt: Date }> = [];
  let lookups = 0;
  const invalidNumbers = new Set<string>();
  const attempts: SmsAttempt[] = [];
  let outage: number | null = null;
  let holding: 'taken' | 'dropped' | null = null;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const requestUrl = new URL(req.url ?? '/', 'http://fake');
      const listing = req.method === 'GET';
      if (
        (req.method !== 'POST' && !listing) ||
        requestUrl.pathname !== `/2010-04-01/Accounts/${credentials.sid}/Messages.json` ||
        (!listing && requestUrl.search !== '')
      )
        return reply(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      if (
        req.headers.authorization !==
        `Basic ${Buffer.from(`${credentials.sid}:${credentials.token}`).toString('base64')}`
      ) {
        return reply(401, { code: 20003, message: 'Authenticate', status: 401 });
      }
      if (listing) {
        lookups++;
        if (outage !== null) return reply(outage, { code: 20500, message: 'An internal server error has occurred' });
        const to = requestUrl.searchParams.get('To');
        const from = requestUrl.searchParams.get('From');
        const pageSize = Number(requestUrl.searchParams.get('PageSize') ?? 50);
        const matching = taken
          .filter((m) => (to === null || m.to === to) && (from === null || m.from === from))
          .reverse();
        return reply(200, {
          messages: matching.slice(0, pageSize).map((m) => ({
            sid: m.sid,
            to: m.to,
            from: m.from,
            body: m.body,
            status: 'delivered',
            date_created: m.createdAt.toUTCString().replace('GMT', '+0000'),
          })),
          page: 0,
          page_size: pageSize,
          next_page_uri: matching.length > pageSize ? `${requestUrl.pathname}?Page=1&PageSize=${pageSize}` : null,
        });
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = form.get('To') ?? '';
      if (holding === 'dropped') {
        held.push(res);
        return;
      }
      attempts.push({ to, at: Date.now(), status: outage ?? (invalidNumbers.has(to) ? 400 : 201) });
      if (outage !== null)
        return reply(outage, {
          code: 20500,
          message: 'An internal server error has occurred',
          more_info: 'https://www.twilio.com/docs/errors/20500',
          status: outage,
        });
      if (invalidNumbers.has(to))
        return reply(400, {
          code: 21211,
          message: `The 'To' number ${to} is not a valid phone number.`,
          more_info: 'https://www.twilio.com/docs/errors/21211',
          status: 400,
        });
      const message = { to, from: form.get('From') ?? '', body: form.get('Body') ?? '', createdAt: now() };
      messages.push(message);
      const sid = `SM${(taken.length + 1).toString().padStart(32, '0')}`;
      taken.push({ ...message, sid });
      if (holding === 'taken') {
        held.push(res);
        return;
      }
      reply(201, {
        sid,
        status: 'queued',
        to,
        from: message.from,
        body: message.body,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    credentials,
    /** The settings that point Doorstep's SMS channel at this fake. */
    env: {
      SMS_API_URL: url,
      SMS_ACCOUNT_SID: credentials.sid,
      SMS_AUTH_TOKEN: credentials.token,
      SMS_FROM: '+15005550006',
    },
    messages,
    attempts,
    /** How many times the Message list was asked. */
    lookups: () => lookups,
    failWith: (status: number | null) => (outage = status),
    hold: (mode: 'taken' | 'dropped' | null) => (holding = mode),
    held: () => held.length,
    markInvalid: (number: string) => invalidNumbers.add(number),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
