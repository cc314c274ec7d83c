import type { CarrierCode } from '../../../../src/carriers/carrier-code.ts';

/** The sandbox control API over HTTP, as a test or demo script would use it. */
export class SandboxControl {
  constructor(private readonly baseUrl: string) {}

  async event(
    carrier: CarrierCode,
    trackingNumber: string,
    event: { status: string; at?: string; estimated_delivery_at?: string | null; description?: string | null },
  ): Promise<void> {
    const response = await this.send(
      'POST',
      `/carriers/${carrier}/packages/${encodeURIComponent(trackingNumber)}/events`,
      event,
    );
    if (response.status !== 201)
      throw new Error(`scripting ${carrier} ${trackingNumber} failed: ${response.status} ${await response.text()}`);
  }

  async faults(
    carrier: CarrierCode,
    faults: { rate_limit?: number; server_error?: number; delay_ms?: number; retry_after_seconds?: number },
  ): Promise<void> {
    const response = await this.send('POST', `/carriers/${carrier}/faults`, faults);
    if (response.status !== 204)
      throw new Error(`setting ${carrier} faults failed: ${response.status} ${await response.text()}`);
  }

  async clearFaults(carrier: CarrierCode): Promise<void> {
    await this.send('DELETE', `/carriers/${carrier}/faults`);
  }

  async stats(carrier: CarrierCode): Promise<{ track_calls: number; oauth_calls: number }> {
    const response = await this.send('GET', `/carriers/${carrier}/stats`);
    return (await response.json()) as { track_calls: number; oauth_calls: number };
  }

  send(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  }
}

/** A clock tests move by hand; `now` is what sandbox and clients are given. */
export class ManualClock {
  constructor(private ms: number) {}
  readonly now = (): Date => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}
