/**
 * Every call the page makes to /shopify/api: a fresh session token from App Bridge as the Bearer
 * token (they live one minute, so one per call, as Shopify advises), JSON in and out, and the API's
 * own error message kept for the page to show.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${await shopify.idToken()}`);
  return fetch(path, { ...init, headers });
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return call<T>(method, path, body === undefined ? {} : { type: 'application/json', data: JSON.stringify(body) });
}

/** A file as the request's body (the logo's upload), with its own type. */
export async function apiUpload<T>(path: string, file: Blob): Promise<T> {
  return call<T>('PUT', path, { type: file.type || 'application/octet-stream', data: file });
}

async function call<T>(method: string, path: string, body: { type?: string; data?: BodyInit }): Promise<T> {
  let response: Response;
  try {
    response = await authorizedFetch(`/shopify/api${path}`, {
      method,
      headers: body.type ? { 'Content-Type': body.type } : {},
      ...(body.data === undefined ? {} : { body: body.data }),
    });
  } catch {
    throw new ApiError(0, 'Doorstep could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const error = (json as { error?: { message?: string; fields?: Record<string, string> } } | undefined)?.error;
    const fields = error?.fields ?? {};
    throw new ApiError(
      response.status,
      fieldProblems(fields) ?? error?.message ?? `Doorstep answered ${response.status}. Please try again.`,
      fields,
    );
  }
  return json as T;
}

/** Shows an error's words: the API's message, or a plain fallback for anything else. */
export function errorMessage(error: unknown): string {
  return error instanceof Error && error.message ? error.message : 'Something went wrong. Please try again.';
}

/**
 * A refusal's fields in the merchant's words, "Price: must be an amount such as "5.00"." — not the
 * API's "The video product is not valid." with the field left out, nor "contact_email: …" (merchant
 * probe). Undefined when there are none.
 */
function fieldProblems(fields: Record<string, string>): string | undefined {
  const problems = Object.entries(fields).map(([field, problem]) => {
    const words = field
      .replace(/_/g, ' ')
      .replace(/\bemail\b/g, 'e-mail')
      .replace(/\burl\b/g, 'address');
    const sentence = `${words.charAt(0).toUpperCase()}${words.slice(1)}: ${problem}`;
    return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  });
  return problems.length > 0 ? problems.join(' ') : undefined;
}
