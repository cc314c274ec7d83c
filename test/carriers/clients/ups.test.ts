import { beforeEach, describe, expect, it } from 'vitest';
import { CarrierUnexpectedResponseError } from '../../../src/carriers/clients/errors.ts';
import { createUpsClient } from '../../../src/carriers/clients/ups.ts';
import type { RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import type { SandboxControl } from '../sandbox/support/control.ts';
import { carrierSandboxForFile } from '../sandbox/support/sandbox-for-file.ts';
import { notFoundResult } from './not-found-result.ts';

describe('UPS client', () => {
  let running: RunningCarrierSandbox;
  let control: SandboxControl;
  const requests: { url: string; headers: Headers }[] = [];

  carrierSandboxForFile((started) => ({ running, control } = started));
  beforeEach(() => {
    requests.length = 0;
  });

  const recordingFetch: typeof fetch = async (input, init) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  const client = (fetchImpl: typeof fetch = recordingFetch) =>
    createUpsClient({
      baseUrl: `${running.baseUrl}/ups`,
      clientId: 'doorstep',
      clientSecret: 'secret',
      fetch: fetchImpl,
      transactionSource: 'doorstep-test',
    });

  it('tracks one number per request', async () => {
    await client().track(['1Z999AA10123456784', '1Z999AA10123456785', '1Z999AA10123456786']);
    expect(await control.stats('ups')).toMatchObject({ track_calls: 3, oauth_calls: 1 });
  });

  it('gets its token with HTTP Basic credentials and a form body', async () => {
    await client().track(['1Z999AA10123456784']);
    const token = requests[0];
    expect(new URL(token?.url ?? '').pathname).toBe('/sandbox/ups/security/v1/oauth/token');
    expect(token?.headers.get('authorization')).toBe(`Basic ${Buffer.from('doorstep:secret').toString('base64')}`);
    expect(token?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
  });

  it('sends the transId and transactionSrc headers the Track API requires', async () => {
    await client().track(['1Z999AA10123456784', '1Z999AA10123456785']);
    const tracks = requests.filter((request) => request.url.includes('/api/track/v1/details/'));
    const transIds = tracks.map((request) => request.headers.get('transId') ?? '');
    expect(transIds.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(transIds).size).toBe(2);
    expect(tracks.map((request) => request.headers.get('transactionSrc'))).toEqual(['doorstep-test', 'doorstep-test']);
  });

  it('reads a documented 404 as not found', async () => {
    const notFound = withTrackAnswer(404, {
      response: { errors: [{ code: '151044', message: 'No tracking information available' }] },
    });
    expect(await client(notFound).track(['1Z999AA10123456784'])).toEqual([
      notFoundResult('1Z999AA10123456784', 'No tracking information available'),
    ]);
  });

  it('does not mistake a 404 from the wrong server for an unknown package', async () => {
    const wrongServer = withTrackAnswer(404, 'Not Found');
    await expect(client(wrongServer).track(['1Z999AA10123456784'])).rejects.toBeInstanceOf(
      CarrierUnexpectedResponseError,
    );
  });

  it('calls an unparseable 200 an unexpected response', async () => {
    const garbage = withTrackAnswer(200, { trackResponse: 'not an object' });
    await expect(client(garbage).track(['1Z999AA10123456784'])).rejects.toBeInstanceOf(CarrierUnexpectedResponseError);
  });

  /** A Track API v1 answer for 1Z999AA10123456784 with these currentStatus and activities. */
  const trackAnswer = (currentStatus: object, activity: object[]) => ({
    trackResponse: {
      shipment: [
        {
          inquiryNumber: '1Z999AA10123456784',
          package: [{ trackingNumber: '1Z999AA10123456784', currentStatus, activity }],
        },
      ],
    },
  });

  it('a package at a UPS Access Point waits for pickup; the pickup delivers it (tracking probe)', async () => {
    const atAccessPoint = { type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' };
    const droppedOff = { date: '20261207', time: '110044', gmtOffset: '-05:00', status: atAccessPoint };
    const waiting = withTrackAnswer(200, trackAnswer(atAccessPoint, [droppedOff]));
    expect(await client(waiting).track(['1Z999AA10123456784'])).toMatchObject([
      { status: 'available_for_pickup', deliveredAt: null },
    ]);

    const collected = { type: 'D', code: 'KB', description: 'Picked up by the receiver at UPS Access Point™' };
    const pickedUp = { date: '20261208', time: '173000', gmtOffset: '-05:00', status: collected };
    const delivered = withTrackAnswer(200, trackAnswer(collected, [pickedUp, droppedOff]));
    expect(await client(delivered).track(['1Z999AA10123456784'])).toMatchObject([
      { status: 'delivered', deliveredAt: new Date('2026-12-08T22:30:00Z') },
    ]);
  });

  it('a stale Delivered in currentStatus loses to a newer Out For Delivery scan (tracking probe)', async () => {
    const stale = withTrackAnswer(
      200,
      trackAnswer({ type: 'D', code: 'KB', description: 'Delivered' }, [
        // Oldest first, as UPS's order is not guaranteed.
        { gmtDate: '20261206', gmtTime: '201044', status: { type: 'D', code: 'KB', description: 'DELIVERED' } },
        {
          gmtDate: '20261207',
          gmtTime: '160044',
          status: { type: 'I', code: 'OT', description: 'Out For Delivery Today' },
        },
      ]),
    );
    expect(await client(stale).track(['1Z999AA10123456784'])).toMatchObject([
      { status: 'out_for_delivery', deliveredAt: null, description: 'Out For Delivery Today' },
    ]);
  });

  /** The sandbox for OAuth, a canned answer for tracking. */
  function withTrackAnswer(status: number, body: unknown): typeof fetch {
    return async (input, init) => {
      if (!String(input).includes('/api/track/')) return fetch(input, init);
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' },
      });
    };
  }
});
