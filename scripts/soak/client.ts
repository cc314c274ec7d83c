/**
 * The soak's HTTP client: every request retried through outages (connection refused, 502/503/504,
 * 429 after its Retry-After) until a deadline, as a patient client would, with every status counted.
 * A 500 is counted and retried too: the soak fails on any, but a story should still finish so the
 * rest of the run measures something.
 */
/** One attempt's limit: the whole answer, body included (an upload of the soak's small video takes well under a second). */
const REQUEST_TIMEOUT_MS = 30_000;

export class SoakClient {
  readonly statuses = new Map<string, number>();
  readonly serverErrors: string[] = [];

  constructor(private readonly retryForMs = 120_000) {}

  async request(
    what: string,
    url: string,
    init: { method: string; headers?: Record<string, string>; body?: string | Buffer },
    accept: (status: number) => boolean = (status) => status < 300,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const deadline = Date.now() + this.retryForMs;
    for (;;) {
      let waitMs = 500;
      try {
        const response = await fetch(url, {
          // A request that never answers is a failed attempt, retried like a refused connection.
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          method: init.method,
          ...(init.headers ? { headers: init.headers } : {}),
          ...(init.body !== undefined ? { body: init.body } : {}),
        });
        const text = await response.text();
        this.count(String(response.status));
        if (accept(response.status)) return { status: response.status, body: parseJson(text) };
        if (response.status === 500) this.serverErrors.push(`${what}: 500 ${text.slice(0, 300)}`);
        const retryable = response.status === 429 || response.status >= 500;
        if (!retryable) throw new Error(`${what}: unexpected ${response.status} ${text.slice(0, 300)}`);
        const retryAfter = Number(response.headers.get('retry-after'));
        if (response.status === 429 && retryAfter > 0) waitMs = retryAfter * 1000;
      } catch (error) {
        if (error instanceof Error && error.message.startsWith(`${what}: unexpected`)) throw error;
        this.count(error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'connection error');
      }
      if (Date.now() + waitMs > deadline) throw new Error(`${what}: no success within ${this.retryForMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private count(key: string): void {
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }
}

function parseJson(text: string): Record<string, unknown> {
  if (text === '') return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
