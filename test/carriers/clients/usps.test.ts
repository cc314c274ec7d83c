import { beforeEach, describe, expect, it } from 'vitest';
import { createUspsClient, USPS_V3R2_MAX_BATCH_SIZE } from '../../../src/carriers/clients/usps.ts';
import { CarrierUnexpectedResponseError } from '../../../src/carriers/clients/errors.ts';
import type { RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import type { SandboxControl } from '../sandbox/support/control.ts';
import { carrierSandboxForFile } from '../sandbox/support/sandbox-for-file.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';

const v3r2Spec = await OpenApiSpec.load('usps-tracking-v3r2.openapi.yaml');

describe('USPS client', () => {
  let running: RunningCarrierSandbox;
  let control: SandboxControl;
  const requests: { method: string; url: string; body: unknown }[] = [];

  carrierSandboxForFile((started) => ({ running, control } = started));
  beforeEach(() => {
    requests.length = 0;
  });

  const client = (api?: 'v3' | 'v3r2') =>
    createUspsClient({
      baseUrl: `${running.baseUrl}/usps`,
      clientId: 'doorstep',
      clientSecret: 'secret',
      ...(api ? { api } : {}),
      fetch: async (input, init) => {
        if (!String(input).endsWith('/token'))
          requests.push({
            method: init?.method ?? 'GET',
            url: String(input),
            body: init?.body ? JSON.parse(String(init.body)) : null,
          });
        return fetch(input, init);
      },
    });

  const numbers = (count: number) =>
    Array.from({ length: count }, (_, index) => `94001118992231974${String(index).padStart(5, '0')}`);

  it('uses v3r2 by default: up to 35 numbers per POST, so 36 take two', async () => {
    const batch = numbers(36);
    await control.event('usps', batch[35] as string, { status: 'delivered', at: '2025-06-02T15:00:00Z' });
    const tracker = client();
    const results = await tracker.track(batch);
    expect(tracker.maxBatchSize).toBe(USPS_V3R2_MAX_BATCH_SIZE);
    expect(requests.map((request) => [request.method, (request.body as unknown[]).length])).toEqual([
      ['POST', 35],
      ['POST', 1],
    ]);
    expect(results.map((result) => result.status)).toEqual([...Array<string>(35).fill('not_found'), 'delivered']);
  });

  it('never sends a number USPS cannot take: answered not found with the rule, and the batch goes on', async () => {
    const [known, alsoKnown] = numbers(2) as [string, string];
    await control.event('usps', known, { status: 'delivered', at: '2025-06-02T15:00:00Z' });
    await control.event('usps', alsoKnown, { status: 'in_transit', at: '2025-06-02T10:00:00Z' });
    // Stored by the API (1–64 printable characters) but outside USPS's 4–34 letters and digits: the
    // sandbox, as USPS, refuses a whole batch with one of them in it (probe finding).
    const results = await client().track([known, 'NOT-A-USPS-NUMBER!', alsoKnown, '123']);
    expect(results.map((result) => [result.trackingNumber, result.status])).toEqual([
      [known, 'delivered'],
      ['NOT-A-USPS-NUMBER!', 'not_found'],
      [alsoKnown, 'in_transit'],
      ['123', 'not_found'],
    ]);
    expect(results[1]!.description).toBe(
      'USPS tracks numbers of 4 to 34 letters and digits; USPS cannot know this one',
    );
    expect(requests.map((request) => request.body)).toEqual([
      [{ trackingNumber: known }, { trackingNumber: alsoKnown }],
    ]);
  });

  /**
   * A USPS client whose track requests are answered 400 with `refusal` when `refuses` says so (the rest
   * reach the sandbox), and the batch sizes it asked, in order.
   */
  function refusingClient(refuses: (numbers: string[]) => boolean, refusal: string) {
    const asked: number[] = [];
    const tracker = createUspsClient({
      baseUrl: `${running.baseUrl}/usps`,
      clientId: 'doorstep',
      clientSecret: 'secret',
      fetch: async (input, init) => {
        if (String(input).endsWith('/token')) return fetch(input, init);
        const body = JSON.parse(String(init?.body)) as Array<{ trackingNumber: string }>;
        asked.push(body.length);
        if (!refuses(body.map((item) => item.trackingNumber))) return fetch(input, init);
        return new Response(JSON.stringify({ apiVersion: 'v3r2', error: { code: '400', message: refusal } }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    return { tracker, asked };
  }

  it('splits a batch USPS refuses with a 400 until the number it will not take is alone', async () => {
    const batch = numbers(8);
    await control.event('usps', batch[0]!, { status: 'delivered', at: '2025-06-02T15:00:00Z' });
    const refused = batch[5]!;
    // A refusal no published rule predicts: USPS answers the whole request 400.
    const { tracker, asked } = refusingClient((sent) => sent.includes(refused), 'Invalid tracking number');
    const results = await tracker.track(batch);
    expect(results.map((result) => result.trackingNumber)).toEqual(batch);
    expect(results[0]!.status).toBe('delivered');
    expect(results[5]).toMatchObject({ status: 'not_found', description: 'Invalid tracking number' });
    // Both halves asked, the refused one split again, until the refused number is alone: 7 calls, not
    // one per number, and the other seven answered.
    expect(asked).toEqual([8, 4, 4, 2, 2, 1, 1]);
  });

  it('a 400 for the request itself (every half refused) fails the batch after a few calls, taking no number for not found (probe finding: 69 calls)', async () => {
    const { tracker, asked } = refusingClient(() => true, 'request header Accept is not supported');
    const outcome = await tracker.track(numbers(35)).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(CarrierUnexpectedResponseError);
    expect((outcome as Error).message).toContain('the request itself');
    // 35, both halves, both halves of the first, both halves of its first: then the request is blamed.
    expect(asked).toEqual([35, 18, 17, 9, 9, 5, 4]);
  });

  it('reads a 207 multi-status answer item by item', async () => {
    const [known, unknown, alsoKnown] = numbers(3) as [string, string, string];
    await control.event('usps', known, { status: 'in_transit', at: '2025-06-02T10:00:00Z' });
    await control.event('usps', alsoKnown, { status: 'available_for_pickup', at: '2025-06-02T11:00:00Z' });
    const results = await client('v3r2').track([known, unknown, alsoKnown]);
    expect(results.map((result) => [result.trackingNumber, result.status])).toEqual([
      [known, 'in_transit'],
      [unknown, 'not_found'],
      [alsoKnown, 'available_for_pickup'],
    ]);
  });

  it('sends the v3r2 body the spec describes (TrackingRequest)', async () => {
    await client('v3r2').track(numbers(2));
    const body = requests[0]?.body;
    expect(body).toEqual(numbers(2).map((trackingNumber) => ({ trackingNumber })));
    expect(v3r2Spec.validate(v3r2Spec.requestSchema('/tracking', 'post'), body)).toEqual([]);
  });

  it('uses v3 one number per GET with expand=DETAIL when asked', async () => {
    const [first, second] = numbers(2) as [string, string];
    await control.event('usps', first, { status: 'out_for_delivery', at: '2025-06-02T10:00:00Z' });
    const tracker = client('v3');
    const results = await tracker.track([first, second]);
    expect(tracker.maxBatchSize).toBe(1);
    expect(
      requests.map(
        (request) =>
          `${request.method} ${new URL(request.url).pathname.replace(/^\/sandbox\/usps/, '')}${new URL(request.url).search}`,
      ),
    ).toEqual([
      `GET /tracking/v3/tracking/${first}?expand=DETAIL`,
      `GET /tracking/v3/tracking/${second}?expand=DETAIL`,
    ]);
    expect(results.map((result) => result.status)).toEqual(['out_for_delivery', 'not_found']);
  });
});
