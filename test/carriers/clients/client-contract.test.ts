import { beforeEach, describe, expect, it } from 'vitest';
import type { CarrierCode } from '../../../src/carriers/carrier-code.ts';
import {
  CarrierAuthError,
  CarrierRateLimitedError,
  CarrierUnavailableError,
} from '../../../src/carriers/clients/errors.ts';
import { createFedexClient } from '../../../src/carriers/clients/fedex.ts';
import type { CarrierCall, CarrierClient, CarrierClientOptions } from '../../../src/carriers/clients/types.ts';
import { createUpsClient } from '../../../src/carriers/clients/ups.ts';
import { createUspsClient } from '../../../src/carriers/clients/usps.ts';
import type { RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import { ManualClock, type SandboxControl } from '../sandbox/support/control.ts';
import { carrierSandboxForFile } from '../sandbox/support/sandbox-for-file.ts';
import { notFoundResult } from './not-found-result.ts';

/** The behaviour every carrier client promises, each run against the sandbox speaking that carrier's wire format. */
interface ClientCase {
  name: string;
  carrier: CarrierCode;
  trackingNumber: string;
  create(options: CarrierClientOptions): CarrierClient;
}

const cases: ClientCase[] = [
  { name: 'UPS', carrier: 'ups', trackingNumber: '1Z999AA10123456784', create: (options) => createUpsClient(options) },
  { name: 'FedEx', carrier: 'fedex', trackingNumber: '123456789012', create: (options) => createFedexClient(options) },
  {
    name: 'USPS v3r2',
    carrier: 'usps',
    trackingNumber: '9400111899223197428490',
    create: (options) => createUspsClient({ ...options, api: 'v3r2' }),
  },
  {
    name: 'USPS v3',
    carrier: 'usps',
    trackingNumber: '9400111899223197428490',
    create: (options) => createUspsClient({ ...options, api: 'v3' }),
  },
];

const START = Date.parse('2025-06-02T12:00:00Z');
const TOKEN_TTL_SECONDS = 600;
const SECRET = 'sandbox-secret-value';

describe.each(cases)('$name client against the sandbox', ({ carrier, trackingNumber, create }) => {
  let running: RunningCarrierSandbox;
  let control: SandboxControl;
  let serverClock: ManualClock;
  let clientClock: ManualClock;
  let calls: CarrierCall[];

  carrierSandboxForFile((started) => ({ running, control } = started), {
    now: () => serverClock.now(),
    tokenTtlSeconds: TOKEN_TTL_SECONDS,
  });
  beforeEach(() => {
    serverClock = new ManualClock(START);
    clientClock = new ManualClock(START);
    calls = [];
  });

  const client = (overrides: Partial<CarrierClientOptions> = {}): CarrierClient =>
    create({
      baseUrl: `${running.baseUrl}/${carrier}`,
      clientId: 'doorstep-test',
      clientSecret: SECRET,
      now: () => clientClock.now(),
      onCall: (call) => calls.push(call),
      ...overrides,
    });

  const trackOne = async (tracker: CarrierClient) => {
    const [result] = await tracker.track([trackingNumber]);
    if (!result) throw new Error('no result');
    return result;
  };

  it('follows a package from unknown to delivered, with the scripted times', async () => {
    const tracker = client();
    expect(await trackOne(tracker)).toEqual(notFoundResult(trackingNumber, expect.any(String)));

    await control.event(carrier, trackingNumber, { status: 'pre_transit', at: '2025-06-02T09:15:00Z' });
    expect(await trackOne(tracker)).toMatchObject({
      status: 'pre_transit',
      lastEventAt: new Date('2025-06-02T09:15:00Z'),
      deliveredAt: null,
    });

    // 02:30 UTC is 21:30 the day before in the sandbox's local time (-05:00): dates must survive that.
    await control.event(carrier, trackingNumber, {
      status: 'in_transit',
      at: '2025-06-03T04:05:06Z',
      estimated_delivery_at: '2025-06-05T02:30:00Z',
    });
    expect(await trackOne(tracker)).toMatchObject({
      status: 'in_transit',
      lastEventAt: new Date('2025-06-03T04:05:06Z'),
      estimatedDeliveryAt: new Date('2025-06-05T02:30:00Z'),
      // The sandbox opens its windows four hours before the estimate.
      estimatedWindowStartAt: new Date('2025-06-04T22:30:00Z'),
    });

    await control.event(carrier, trackingNumber, { status: 'out_for_delivery', at: '2025-06-04T13:00:00Z' });
    expect(await trackOne(tracker)).toMatchObject({
      status: 'out_for_delivery',
      estimatedDeliveryAt: new Date('2025-06-05T02:30:00Z'),
      deliveredAt: null,
    });

    await control.event(carrier, trackingNumber, {
      status: 'delivered',
      at: '2025-06-04T18:42:17Z',
      description: 'Left at the front door',
    });
    expect(await trackOne(tracker)).toEqual({
      trackingNumber,
      status: 'delivered',
      deliveredAt: new Date('2025-06-04T18:42:17Z'),
      estimatedDeliveryAt: null,
      estimatedWindowStartAt: null,
      lastEventAt: new Date('2025-06-04T18:42:17Z'),
      description: 'Left at the front door',
      // Every sandbox package goes to Wayne, NJ (the v3r2 answer carries only the state).
      destination: expect.objectContaining({ state: 'NJ' }),
    });
  });

  it.each(['available_for_pickup', 'return_to_sender', 'failure'] as const)('reports %s', async (status) => {
    await control.event(carrier, trackingNumber, { status, at: '2025-06-02T10:00:00Z' });
    expect(await trackOne(client())).toMatchObject({ status, lastEventAt: new Date('2025-06-02T10:00:00Z') });
  });

  it('answers in the order asked, one result per number', async () => {
    const other = `${trackingNumber.slice(0, -4)}0000`;
    await control.event(carrier, trackingNumber, { status: 'in_transit', at: '2025-06-02T10:00:00Z' });
    const results = await client().track([other, trackingNumber]);
    expect(results.map((result) => [result.trackingNumber, result.status])).toEqual([
      [other, 'not_found'],
      [trackingNumber, 'in_transit'],
    ]);
  });

  it('reuses one token across calls', async () => {
    const tracker = client();
    for (let round = 0; round < 3; round += 1) await tracker.track([trackingNumber]);
    expect(await control.stats(carrier)).toMatchObject({ track_calls: 3, oauth_calls: 1 });
  });

  it('shares one token request between concurrent calls', async () => {
    const tracker = client();
    await Promise.all(Array.from({ length: 5 }, () => tracker.track([trackingNumber])));
    expect(await control.stats(carrier)).toMatchObject({ track_calls: 5, oauth_calls: 1 });
  });

  it('fetches a new token once the old one expires', async () => {
    const tracker = client();
    await tracker.track([trackingNumber]);
    serverClock.advance(TOKEN_TTL_SECONDS + 1);
    clientClock.advance(TOKEN_TTL_SECONDS + 1);
    await tracker.track([trackingNumber]);
    expect(await control.stats(carrier)).toMatchObject({ track_calls: 2, oauth_calls: 2 });
    expect(calls.some((call) => call.status === 401)).toBe(false);
  });

  it('retries once with a new token when the carrier rejects one early', async () => {
    const tracker = client();
    await tracker.track([trackingNumber]);
    serverClock.advance(TOKEN_TTL_SECONDS + 1); // the carrier expires it; our clock has not moved
    const [result] = await tracker.track([trackingNumber]);
    expect(result?.status).toBe('not_found');
    expect(calls.map((call) => `${call.operation} ${call.status}`)).toEqual([
      'oauth 200',
      `track ${trackStatus()}`,
      'track 401',
      'oauth 200',
      `track ${trackStatus()}`,
    ]);
  });

  it('reports a 429 as rate limited, with Retry-After', async () => {
    await control.faults(carrier, { rate_limit: 1, retry_after_seconds: 7 });
    const tracker = client();
    const error = await tracker.track([trackingNumber]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierRateLimitedError);
    expect(error).toMatchObject({ carrier, retryAfterMs: 7000 });
    expect((await tracker.track([trackingNumber]))[0]?.status).toBe('not_found');
  });

  it('reports a 5xx as unavailable', async () => {
    await control.faults(carrier, { server_error: 1 });
    const error = await client()
      .track([trackingNumber])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierUnavailableError);
    expect(error).not.toBeInstanceOf(CarrierRateLimitedError);
    expect((error as CarrierUnavailableError).status).toBeGreaterThanOrEqual(500);
  });

  it('gives up on a slow carrier after timeoutMs', async () => {
    const tracker = client({ timeoutMs: 150 });
    await tracker.track([trackingNumber]); // token first, so the delay hits a track call
    await control.faults(carrier, { delay_ms: 2000 });
    const started = performance.now();
    const error = await tracker.track([trackingNumber]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierUnavailableError);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(calls.at(-1)).toMatchObject({ operation: 'track', status: null });
  });

  it("passes the caller's abort through instead of calling it an outage", async () => {
    const tracker = client();
    await tracker.track([trackingNumber]);
    await control.faults(carrier, { delay_ms: 2000 });
    const error = await tracker
      .track([trackingNumber], { signal: AbortSignal.timeout(100) })
      .catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(CarrierUnavailableError);
    expect((error as Error).name).toBe('TimeoutError');
  });

  it('rejects bad client credentials as an auth error, without tracking', async () => {
    const error = await client({ clientSecret: 'invalid-secret' })
      .track([trackingNumber])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierAuthError);
    expect(error).toMatchObject({ carrier });
    expect(await control.stats(carrier)).toMatchObject({ track_calls: 0, oauth_calls: 1 });
  });

  it('reports every call, and never a secret or token', async () => {
    await control.event(carrier, trackingNumber, { status: 'in_transit' });
    await client().track([trackingNumber]);
    expect(calls).toEqual([
      { carrier, operation: 'oauth', status: 200, durationMs: expect.any(Number), trackingNumbers: 0 },
      { carrier, operation: 'track', status: 200, durationMs: expect.any(Number), trackingNumbers: 1 },
    ]);
    expect(JSON.stringify(calls)).not.toContain(SECRET);
    expect(JSON.stringify(calls)).not.toContain('sandbox-');
  });

  /** The HTTP status a track call for an unknown number gets: 200 with a not-found marker, or 404. */
  function trackStatus(): number {
    return carrier === 'usps' ? 404 : 200;
  }
});
