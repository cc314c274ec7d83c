import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Shopify's webhook check, done once per request with the key made once. It answers what
 * `@shopify/shopify-api`'s `webhooks.validate` answers (test/shopify/webhook-hmac.test.ts holds the
 * two side by side), without its per-call costs: the library imports the secret as a WebCrypto key
 * on every call and looks each header up with a case-insensitive scan, which profiling put at 19%
 * of the server thread under a webhook burst (issue 11).
 *
 * The same checks, in the library's order: a body; the HMAC header; the HMAC of the body; then the
 * topic, shop domain, API version and webhook id headers (all missing ones named). Like the library,
 * the `shopify-*` header set (Shopify Events) is used when its HMAC header is present, else the
 * `x-shopify-*` set.
 */

export type WebhookRejection = 'missing_body' | 'missing_hmac' | 'invalid_hmac' | 'missing_headers';

export type WebhookCheck =
  | {
      valid: true;
      webhookType: 'webhooks' | 'events';
      /** As the header says it ("orders/create"); the library's value is upper-cased (ORDERS_CREATE). */
      topic: string;
      domain: string;
      apiVersion: string;
      webhookId: string;
      triggeredAt?: string;
    }
  | { valid: false; reason: WebhookRejection; missingHeaders?: string[] };

interface HeaderNames {
  hmac: string;
  topic: string;
  domain: string;
  apiVersion: string;
  webhookId: string;
  triggeredAt: string;
}

// Node lower-cases incoming header names, so a lookup is one property read. The spelling in
// `missingHeaders` is the library's.
const WEBHOOK_HEADERS: HeaderNames = {
  hmac: 'X-Shopify-Hmac-Sha256',
  topic: 'X-Shopify-Topic',
  domain: 'X-Shopify-Shop-Domain',
  apiVersion: 'X-Shopify-API-Version',
  webhookId: 'X-Shopify-Webhook-Id',
  triggeredAt: 'X-Shopify-Triggered-At',
};
const EVENTS_HEADERS: HeaderNames = {
  hmac: 'shopify-hmac-sha256',
  topic: 'shopify-topic',
  domain: 'shopify-shop-domain',
  apiVersion: 'shopify-api-version',
  webhookId: 'shopify-webhook-id',
  triggeredAt: 'shopify-triggered-at',
};

/** Like the library: the `shopify-*` set (Shopify Events) when its HMAC header is there, else `x-shopify-*`. */
function headerSetOf(headers: IncomingHttpHeaders): HeaderNames {
  return header(headers, EVENTS_HEADERS.hmac) ? EVENTS_HEADERS : WEBHOOK_HEADERS;
}

/** An HMAC-SHA256 is 32 bytes: 44 base64 characters with one `=`. */
const SIGNATURE_BYTES = 32;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  // Node joins repeated custom headers into one string; only set-cookie is an array.
  const first = Array.isArray(value) ? value[0] : value;
  return first ? first : undefined;
}

/** The signature's bytes, or null unless the header is exactly the base64 of 32 bytes. */
function signatureBytes(signature: string): Buffer | null {
  const bytes = Buffer.from(signature, 'base64');
  // Buffer's decoder forgives (skips stray characters, accepts missing padding and base64url);
  // the library compares the text, so only the one canonical spelling of 32 bytes may pass.
  // Comparing the header with its own re-encoding says nothing about the secret.
  if (bytes.length !== SIGNATURE_BYTES || bytes.toString('base64') !== signature) return null;
  return bytes;
}

/** Builds the check for one app secret; the key is made here, once. */
export function webhookVerifier(apiSecret: string): (rawBody: string, headers: IncomingHttpHeaders) => WebhookCheck {
  const key: KeyObject = createSecretKey(Buffer.from(apiSecret, 'utf8'));
  return (rawBody, headers) => {
    const names = headerSetOf(headers);
    if (rawBody.length === 0) return { valid: false, reason: 'missing_body' };
    const signature = header(headers, names.hmac);
    if (!signature) return { valid: false, reason: 'missing_hmac' };
    const presented = signatureBytes(signature);
    const expected = createHmac('sha256', key).update(rawBody, 'utf8').digest();
    if (!presented || !timingSafeEqual(presented, expected)) return { valid: false, reason: 'invalid_hmac' };

    const topic = header(headers, names.topic);
    const domain = header(headers, names.domain);
    const apiVersion = header(headers, names.apiVersion);
    const webhookId = header(headers, names.webhookId);
    if (!topic || !domain || !apiVersion || !webhookId) {
      const missingHeaders = [names.topic, names.domain, names.apiVersion, names.webhookId].filter(
        (name) => !header(headers, name),
      );
      return { valid: false, reason: 'missing_headers', missingHeaders };
    }
    const triggeredAt = header(headers, names.triggeredAt);
    return {
      valid: true,
      webhookType: names === EVENTS_HEADERS ? 'events' : 'webhooks',
      topic,
      domain,
      apiVersion,
      webhookId,
      ...(triggeredAt ? { triggeredAt } : {}),
    };
  };
}

/**
 * What can be refused from the headers alone, before a byte of the body is read: no signature, or
 * one that is not the base64 of 32 bytes and so can never match (the answer the full check would
 * give). A body whose signature cannot pass is then never buffered (issue 31, 3). A well-formed
 * signature still needs the whole body to be checked.
 */
export function webhookSignatureRefusal(headers: IncomingHttpHeaders): 'missing_hmac' | 'invalid_hmac' | null {
  const names = headerSetOf(headers);
  const signature = header(headers, names.hmac);
  if (!signature) return 'missing_hmac';
  return signatureBytes(signature) ? null : 'invalid_hmac';
}

/** The shop a webhook says it is from (unsigned: only a key to share the intake fairly by). */
export function claimedWebhookShop(headers: IncomingHttpHeaders): string | null {
  const names = headerSetOf(headers);
  return header(headers, names.domain)?.trim().toLowerCase().slice(0, 255) || null;
}
