import { beforeEach, describe, expect, it } from 'vitest';
import { createFedexClient, FEDEX_MAX_BATCH_SIZE } from '../../../src/carriers/clients/fedex.ts';
import type { RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import type { SandboxControl } from '../sandbox/support/control.ts';
import { carrierSandboxForFile } from '../sandbox/support/sandbox-for-file.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';

const spec = await OpenApiSpec.load('fedex-track.openapi.json');

describe('FedEx client', () => {
  let running: RunningCarrierSandbox;
  let control: SandboxControl;
  const requests: { url: string; body: unknown }[] = [];

  carrierSandboxForFile((started) => ({ running, control } = started));
  beforeEach(() => {
    requests.length = 0;
  });

  const client = () =>
    createFedexClient({
      baseUrl: `${running.baseUrl}/fedex`,
      clientId: 'doorstep',
      clientSecret: 'secret',
      fetch: async (input, init) => {
        const url = String(input);
        if (url.endsWith('/track/v1/trackingnumbers')) requests.push({ url, body: JSON.parse(String(init?.body)) });
        return fetch(input, init);
      },
    });

  it('tracks up to 30 numbers per request, so 31 take two', async () => {
    const numbers = Array.from({ length: 31 }, (_, index) => String(100000000000 + index));
    await control.event('fedex', numbers[0] as string, { status: 'delivered', at: '2025-06-02T15:00:00Z' });
    await control.event('fedex', numbers[30] as string, { status: 'out_for_delivery', at: '2025-06-02T08:00:00Z' });

    const results = await client().track(numbers);

    expect(FEDEX_MAX_BATCH_SIZE).toBe(30);
    expect(await control.stats('fedex')).toMatchObject({ track_calls: 2, oauth_calls: 1 });
    expect(requests.map((request) => (request.body as { trackingInfo: unknown[] }).trackingInfo.length)).toEqual([
      30, 1,
    ]);
    expect(results.map((result) => result.trackingNumber)).toEqual(numbers);
    expect(results[0]).toMatchObject({ status: 'delivered', deliveredAt: new Date('2025-06-02T15:00:00Z') });
    expect(results[30]).toMatchObject({ status: 'out_for_delivery' });
    expect(results.slice(1, 30).every((result) => result.status === 'not_found')).toBe(true);
  });

  it('sends the request body the spec describes (Full_Schema_Tracking_Numbers)', async () => {
    await client().track(['123456789012', '98765432109876']);
    const [request] = requests;
    expect(request?.body).toEqual({
      includeDetailedScans: false,
      trackingInfo: [
        { trackingNumberInfo: { trackingNumber: '123456789012' } },
        { trackingNumberInfo: { trackingNumber: '98765432109876' } },
      ],
    });
    expect(spec.validate(spec.requestSchema('/track/v1/trackingnumbers', 'post'), request?.body)).toEqual([]);
  });

  it('makes no request for an empty list', async () => {
    expect(await client().track([])).toEqual([]);
    expect(await control.stats('fedex')).toMatchObject({ track_calls: 0, oauth_calls: 0 });
  });
});
