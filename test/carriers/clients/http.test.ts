import { describe, expect, it } from 'vitest';
import { CarrierRateLimitedError, CarrierUnavailableError } from '../../../src/carriers/clients/errors.ts';
import { createCarrierHttp, parseRetryAfter } from '../../../src/carriers/clients/http.ts';
import type { CarrierCall } from '../../../src/carriers/clients/types.ts';
import { carrierCallOutcome } from '../../../src/operations/metrics.ts';

const NOW = new Date('2025-06-02T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['30', 30_000],
    ['0', null], // a wait of nothing: the default hold-off, not a call on every claim
    ['Mon, 02 Jun 2025 12:00:45 GMT', 45_000],
    ['Mon, 02 Jun 2025 11:00:00 GMT', null], // already past (probe finding: it was 0, so every claim called again)
    ['1.5', null],
    ['soon', null],
    ['', null],
    [null, null],
  ] as const)('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});

describe('carrier HTTP exchange', () => {
  const request = { operation: 'track', trackingNumbers: 2, method: 'GET', path: '/x', headers: {} } as const;
  const answering =
    (status: number, headers: Record<string, string> = {}, body = '{}'): typeof fetch =>
    async () =>
      new Response(body, { status, headers });

  const http = (fetchImpl: typeof fetch, calls: CarrierCall[] = []) =>
    createCarrierHttp('usps', {
      baseUrl: 'https://carrier.test/',
      clientId: 'id',
      clientSecret: 'secret',
      fetch: fetchImpl,
      now: () => NOW,
      onCall: (call) => calls.push(call),
      timeoutMs: 50,
    });

  it('returns other statuses with the body parsed as JSON, or as text', async () => {
    expect(await http(answering(404, {}, '{"error":{"code":"404"}}')).send(request)).toMatchObject({
      status: 404,
      body: { error: { code: '404' } },
    });
    expect(await http(answering(200, {}, 'plain')).send(request)).toMatchObject({ status: 200, body: 'plain' });
    expect(await http(answering(200, {}, '')).send(request)).toMatchObject({ status: 200, body: null });
  });

  it('turns 429, and 503 with Retry-After, into rate limits', async () => {
    await expect(http(answering(429, { 'retry-after': '12' })).send(request)).rejects.toMatchObject({
      name: 'CarrierRateLimitedError',
      retryAfterMs: 12_000,
    });
    await expect(http(answering(429)).send(request)).rejects.toMatchObject({ retryAfterMs: null });
    await expect(
      http(answering(503, { 'retry-after': 'Mon, 02 Jun 2025 12:01:00 GMT' })).send(request),
    ).rejects.toMatchObject({ retryAfterMs: 60_000 });
  });

  it('turns other 5xx into unavailable', async () => {
    const error = await http(answering(503))
      .send(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierUnavailableError);
    expect(error).not.toBeInstanceOf(CarrierRateLimitedError);
    expect(error).toMatchObject({ status: 503, carrier: 'usps' });
  });

  it('turns network errors into unavailable, keeping the cause', async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    const error = await http(async () => Promise.reject(refused))
      .send(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierUnavailableError);
    expect((error as Error).cause).toBe(refused);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('reports each exchange to onCall, status null when nothing came back', async () => {
    const calls: CarrierCall[] = [];
    await http(answering(200), calls).send(request);
    await http(async () => Promise.reject(new TypeError('fetch failed')), calls)
      .send(request)
      .catch(() => undefined);
    expect(calls).toEqual([
      { carrier: 'usps', operation: 'track', status: 200, durationMs: expect.any(Number), trackingNumbers: 2 },
      { carrier: 'usps', operation: 'track', status: null, durationMs: expect.any(Number), trackingNumbers: 2 },
    ]);
  });

  it('reports a 2xx that is not JSON as unreadable, for the metrics (tracking probe: cut-off JSON counted ok)', async () => {
    const calls: CarrierCall[] = [];
    await http(answering(200, {}, '{"output":{"completeTrackRes'), calls).send(request);
    await http(answering(200, {}, '{"output":{}}'), calls).send(request);
    expect(calls.map((call) => call.unreadable ?? false)).toEqual([true, false]);
    expect(carrierCallOutcome(calls[0]!.status, calls[0]!.unreadable)).toBe('unreadable');
  });

  it('is not disturbed by an onCall that throws', async () => {
    const exchange = createCarrierHttp('ups', {
      baseUrl: 'https://carrier.test',
      clientId: 'id',
      clientSecret: 'secret',
      fetch: answering(200),
      onCall: () => {
        throw new Error('logger down');
      },
    });
    expect((await exchange.send(request)).status).toBe(200);
  });

  it('joins baseUrl and path with exactly one slash', async () => {
    const urls: string[] = [];
    await http(async (input) => {
      urls.push(String(input));
      return new Response('{}');
    }).send(request);
    expect(urls).toEqual(['https://carrier.test/x']);
  });
});
