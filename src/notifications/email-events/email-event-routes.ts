import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { readBodyBytes } from '../../http/body-reads.ts';
import { HttpError } from '../../http/errors.ts';
import { JSON_BODY_LIMIT_BYTES, parseJsonText } from '../../http/json-body.ts';
import type { Logger } from '../../logger.ts';
import { sameText } from '../../tracking/push-credentials.ts';
import type { EmailProviderEvent } from './email-event-kinds.ts';
import type { EmailEventConfig } from './email-events-config.ts';
import type { EmailEvents } from './email-events.ts';
import { postmarkEvent, postmarkEventSchema } from './providers/postmark.ts';
import {
  SENDGRID_SIGNATURE_HEADER,
  SENDGRID_TIMESTAMP_HEADER,
  sendgridBatchSchema,
  sendgridEvent,
  sendgridSignatureValid,
} from './providers/sendgrid.ts';
import { SnsCertificates, sesEvent, snsEnvelopeSchema, snsUrlAllowed } from './providers/ses.ts';

/** The webhook URLs to give each provider (docs/notifications.md "Bounces"). */
export const EMAIL_EVENT_PATHS = {
  postmark: '/webhooks/email/postmark',
  ses: '/webhooks/email/ses',
  sendgrid: '/webhooks/email/sendgrid',
} as const;

/**
 * Public routes the e-mail providers call, each authenticated the way its provider documents, before
 * anything is stored: a call that fails it is 401 and leaves nothing behind. The events are stored
 * raw and answered 200 at once; they are applied right after the answer (and by the reconciler for
 * anything missed). A provider not configured has no route: 404.
 */
export function emailEventRoutes(deps: { config: EmailEventConfig; events: EmailEvents; logger: Logger }): Router {
  const router = new Router();
  const { config, events, logger } = deps;

  const accept = async (ctx: Context, received: Array<{ event: EmailProviderEvent; body: unknown }>) => {
    const stored = await events.store(received);
    ctx.body = {};
    if (stored > 0) applySoon(events, logger);
  };

  const postmark = config.postmark;
  if (postmark) {
    router.post(EMAIL_EVENT_PATHS.postmark, async (ctx) => {
      // Credentials before the body: nothing from an unknown caller is read or stored.
      if (!basicCredentialsMatch(ctx.get('authorization'), postmark))
        throw new HttpError(401, 'unauthorized', 'Missing or invalid webhook credentials.', {
          'WWW-Authenticate': 'Basic realm="Doorstep e-mail events", charset="UTF-8"',
        });
      const body = parseJson(await readBody(ctx));
      const parsed = postmarkEventSchema.safeParse(body);
      if (!parsed.success) throw invalidEvent('a Postmark webhook record', parsed.error);
      await accept(ctx, [{ event: postmarkEvent(parsed.data), body }]);
    });
  }

  const sendgrid = config.sendgrid;
  if (sendgrid) {
    router.post(EMAIL_EVENT_PATHS.sendgrid, async (ctx) => {
      const raw = await readBody(ctx);
      // The signature covers the exact bytes, so it is checked before they are parsed.
      if (
        !sendgridSignatureValid(
          sendgrid.publicKey,
          raw,
          ctx.get(SENDGRID_SIGNATURE_HEADER) || undefined,
          ctx.get(SENDGRID_TIMESTAMP_HEADER) || undefined,
        )
      )
        throw new HttpError(401, 'unauthorized', 'Missing or invalid Event Webhook signature.');
      const body = parseJson(raw);
      const parsed = sendgridBatchSchema.safeParse(body);
      if (!parsed.success) throw invalidEvent('a SendGrid event batch', parsed.error);
      await accept(
        ctx,
        parsed.data.map((event) => ({ event: sendgridEvent(event), body: event })),
      );
    });
  }

  const ses = config.ses;
  if (ses) {
    const certificates = new SnsCertificates(ses.certHosts);
    router.post(EMAIL_EVENT_PATHS.ses, async (ctx) => {
      // SNS posts JSON as text/plain; the envelope carries its own signature, checked before anything else is done.
      const body = parseJson(await readBody(ctx));
      const parsed = snsEnvelopeSchema.safeParse(body);
      if (!parsed.success) throw invalidEvent('an Amazon SNS message', parsed.error);
      const envelope = parsed.data;
      if (!(await certificates.verify(envelope)))
        throw new HttpError(401, 'unauthorized', 'The SNS message signature does not verify.');
      // Anyone can have SNS sign messages of their own topic: only ours count.
      if (!ses.topicArns.includes(envelope.TopicArn))
        throw new HttpError(403, 'forbidden', 'The SNS topic is not one this server subscribes to.');
      if (envelope.Type === 'SubscriptionConfirmation') {
        await confirmSubscription(envelope.SubscribeURL ?? '', ses.certHosts);
        logger.info({ topicArn: envelope.TopicArn }, 'confirmed the SNS subscription for SES e-mail events');
        ctx.body = {};
        return;
      }
      if (envelope.Type === 'UnsubscribeConfirmation') {
        logger.warn({ topicArn: envelope.TopicArn }, 'SNS says the SES e-mail events subscription was removed');
        ctx.body = {};
        return;
      }
      let event: EmailProviderEvent;
      try {
        event = sesEvent(envelope);
      } catch (error) {
        throw invalidEvent('an SES notification', error instanceof z.ZodError ? error : null);
      }
      await accept(ctx, [{ event, body }]);
    });
  }
  return router;
}

/** SNS's documented handshake: GET the SubscribeURL, itself an SNS host. */
async function confirmSubscription(url: string, allowed: readonly string[]): Promise<void> {
  if (!snsUrlAllowed(url, allowed))
    throw new HttpError(400, 'invalid_event', 'The SubscribeURL is not an Amazon SNS address.');
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) });
  if (!response.ok)
    throw new HttpError(502, 'upstream_error', `Confirming the SNS subscription failed (${response.status}).`);
}

function basicCredentialsMatch(authorization: string, expected: { username: string; password: string }): boolean {
  const match = /^Basic\s+(\S+)$/i.exec(authorization.trim());
  if (!match?.[1]) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return false;
  const userOk = sameText(decoded.slice(0, separator), expected.username);
  const passwordOk = sameText(decoded.slice(separator + 1), expected.password);
  return userOk && passwordOk;
}

function readBody(ctx: Context): Promise<Buffer> {
  return readBodyBytes(ctx, JSON_BODY_LIMIT_BYTES, `Event bodies are limited to ${JSON_BODY_LIMIT_BYTES} bytes.`);
}

function parseJson(raw: Buffer): unknown {
  return parseJsonText(raw.toString('utf8'));
}

function invalidEvent(what: string, error: z.ZodError | null): HttpError {
  return new HttpError(400, 'invalid_event', `The body is not ${what}${error ? `: ${z.prettifyError(error)}` : '.'}`);
}

/** After the answer is on its way: the provider waits for nobody, and a failure is the reconciler's to retry. */
function applySoon(events: EmailEvents, logger: Logger): void {
  setImmediate(() => {
    events.processPending().catch((error: unknown) => {
      logger.warn({ err: error }, 'applying e-mail provider events failed; the reconciler retries');
    });
  });
}
