/**
 * What the record-link extension shows, decided without any UI: ask the Doorstep server for the
 * order's video messages, wait and ask again while it answers `pending`, and settle on what to show.
 * No imports, so it runs (and is tested) anywhere `fetch` exists.
 */

/** The server's path (src/shopify/orders/extension-routes.ts). */
export const RECORD_LINKS_PATH = '/shopify/extension/record-links';

/**
 * Waits between asks while the answer is `pending`. Our orders/create webhook may land after the
 * thank-you page renders; Shopify usually delivers it within seconds. About half a minute in all,
 * then the page shows nothing (the shopper also gets the link by e-mail). An order without a video
 * message stays `pending` for ever, so this budget is also what such an order costs: six requests.
 */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 15_000];

export interface RecordLinkMessage {
  recipientName: string;
  recordUrl: string;
  recorded: boolean;
}

export type RecordLinksView = { show: 'nothing' } | { show: 'messages'; messages: RecordLinkMessage[] };

export interface LoadRecordLinksOptions {
  /** Where the Doorstep server is (its origin; a path is ignored). Unset → nothing to show. */
  appUrl: string | undefined;
  /** The Shopify order: `gid://shopify/Order/…`, `gid://shopify/OrderIdentity/…` or the number. */
  orderId: string | undefined;
  /** `shopify.sessionToken.get`: called before every request, as Shopify asks (it caches). */
  getSessionToken: () => Promise<string>;
  retryDelaysMs?: readonly number[];
  fetch?: typeof fetch;
  /** Stops asking (the extension was unmounted): resolves to nothing. */
  signal?: AbortSignal;
}

const NOTHING: RecordLinksView = { show: 'nothing' };

/** One answer from the server, as the retry loop sees it. */
export type AttemptOutcome = { kind: 'settled'; view: RecordLinksView } | { kind: 'retry' };

export async function loadRecordLinks(options: LoadRecordLinksOptions): Promise<RecordLinksView> {
  const url = recordLinksUrl(options.appUrl, options.orderId);
  if (!url) return NOTHING;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const doFetch = options.fetch ?? fetch;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) return NOTHING;
    const outcome = await ask(url, options.getSessionToken, doFetch, options.signal);
    if (outcome.kind === 'settled') return outcome.view;
    const delay = delays[attempt];
    if (delay === undefined) return NOTHING;
    await sleep(delay, options.signal);
  }
}

/** `${origin}/shopify/extension/record-links?order_id=…`, or null when either part is missing or unusable. */
export function recordLinksUrl(appUrl: string | undefined, orderId: string | undefined): string | null {
  if (!appUrl || !orderId) return null;
  let url: URL;
  try {
    url = new URL(RECORD_LINKS_PATH, appUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.searchParams.set('order_id', orderId);
  return url.toString();
}

async function ask(
  url: string,
  getSessionToken: () => Promise<string>,
  doFetch: typeof fetch,
  signal: AbortSignal | undefined,
): Promise<AttemptOutcome> {
  let response: Response;
  let body: unknown = undefined;
  try {
    const token = await getSessionToken();
    response = await doFetch(url, { headers: { Authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
    if (response.ok) body = await response.json();
  } catch {
    // No network, the server down, a body cut off, no token yet: all may pass.
    return signal?.aborted ? { kind: 'settled', view: NOTHING } : { kind: 'retry' };
  }
  return decideAnswer(response.status, body);
}

/**
 * The decision on one answer. `pending`, 429 and 5xx may change: ask again. Any other 4xx (a token
 * we reject, a bad id) will not: show nothing. A `ready` answer is final, even with no message.
 */
export function decideAnswer(status: number, body: unknown): AttemptOutcome {
  if (status === 429 || status >= 500) return { kind: 'retry' };
  if (status < 200 || status >= 300 || typeof body !== 'object' || body === null) {
    return { kind: 'settled', view: NOTHING };
  }
  const answer = body as { status?: unknown; messages?: unknown };
  if (answer.status === 'pending') return { kind: 'retry' };
  if (answer.status !== 'ready' || !Array.isArray(answer.messages)) return { kind: 'settled', view: NOTHING };
  const messages = answer.messages.flatMap((message: unknown) => {
    const parsed = parseMessage(message);
    return parsed ? [parsed] : [];
  });
  return { kind: 'settled', view: messages.length > 0 ? { show: 'messages', messages } : NOTHING };
}

function parseMessage(value: unknown): RecordLinkMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const { recipient_name, record_url, recorded } = value as Record<string, unknown>;
  if (typeof recipient_name !== 'string' || typeof recorded !== 'boolean' || !isWebUrl(record_url)) return null;
  return { recipientName: recipient_name, recordUrl: record_url, recorded };
}

/** Only http(s) links are shown: a link is pressed by the shopper, so no `javascript:` or other scheme. */
function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
