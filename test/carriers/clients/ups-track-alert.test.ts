import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpsClient } from '../../../src/carriers/clients/ups.ts';
import { startCarrierSandbox, type RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';
import {
  parseUpsSubscriptionResponse,
  upsEventKey,
  upsEventResult,
  upsTrackingEventSchema,
} from '../../../src/carriers/clients/ups-track-alert.ts';
import { CarrierUnexpectedResponseError } from '../../../src/carriers/clients/errors.ts';

/** The examples of ups-track-alert.openapi.yaml (webhooks.TrackingEvent), read as tracking results. */
const outForDelivery = {
  trackingNumber: '1Z204W4R0308071865',
  localActivityDate: '20240423',
  localActivityTime: '091519',
  activityLocation: { city: 'Charlotte', stateProvince: 'NC', postalCode: '30004', country: 'US' },
  activityStatus: { type: 'I', code: 'OT', description: 'Out for Delivery', descriptionCode: '021' },
  scheduledDeliveryDate: '20240423',
  gmtActivityDate: '20240423',
  gmtActivityTime: '131519',
  deliveryTimeDescription: 'end of day',
};
const delivered = {
  trackingNumber: '1Z204W4R0308071865',
  localActivityDate: '20240423',
  localActivityTime: '095004',
  activityStatus: { type: 'D', code: 'FS', description: 'Delivered', descriptionCode: '011' },
  scheduledDeliveryDate: '20191014',
  gmtActivityDate: '20240423',
  gmtActivityTime: '135004',
  gmtOffset: '-04.00',
  actualDeliveryDate: '20240423',
  actualDeliveryTime: '095004',
  receivedBy: 'John',
};

describe('UPS Track Alert events', () => {
  it('out for delivery (type I, code OT), at the GMT time, with the scheduled day as estimate', () => {
    const result = upsEventResult(upsTrackingEventSchema.parse(outForDelivery));
    expect(result).toMatchObject({
      trackingNumber: '1Z204W4R0308071865',
      status: 'out_for_delivery',
      deliveredAt: null,
      lastEventAt: new Date('2024-04-23T13:15:19Z'),
      description: 'Out for Delivery',
    });
    // No gmtOffset in this example: local 09:15:19 at GMT 13:15:19 says UTC−4, so the local end of day.
    expect(result.estimatedDeliveryAt).toEqual(new Date('2024-04-24T03:59:59Z'));
  });

  it('delivered: the actual local delivery time at the gmtOffset', () => {
    const result = upsEventResult(upsTrackingEventSchema.parse(delivered));
    expect(result.status).toBe('delivered');
    expect(result.deliveredAt).toEqual(new Date('2024-04-23T13:50:04Z'));
    expect(result.estimatedDeliveryAt).toBeNull();
  });

  it("delivered without gmtOffset (the spec's second delivery example): the GMT instant, not local time read as UTC", () => {
    const { gmtOffset: _omitted, ...withoutOffset } = delivered;
    const result = upsEventResult(upsTrackingEventSchema.parse(withoutOffset));
    expect(result.deliveredAt).toEqual(new Date('2024-04-23T13:50:04Z'));
    const gmtOnly = { ...withoutOffset, localActivityDate: undefined, localActivityTime: undefined };
    expect(upsEventResult(upsTrackingEventSchema.parse(gmtOnly)).deliveredAt).toEqual(new Date('2024-04-23T13:50:04Z'));
  });

  it("reads UPS's unpadded GMT time ('74700' is 07:47:00) instead of refusing the post", () => {
    const early = { ...outForDelivery, localActivityTime: '34700', gmtActivityTime: '74700' };
    expect(upsEventResult(upsTrackingEventSchema.parse(early)).lastEventAt).toEqual(new Date('2024-04-23T07:47:00Z'));
  });

  it('an Access Point delivery (D, 2Q) is a pickup, not the recipient holding the gift', () => {
    const pickup = { ...delivered, activityStatus: { type: 'D', code: '2Q', description: 'At Access Point' } };
    expect(upsEventResult(upsTrackingEventSchema.parse(pickup)).status).toBe('available_for_pickup');
  });

  it('a push saying "Delivered to UPS Access Point™" under a code we do not list is a pickup too (tracking probe)', () => {
    const pickup = {
      ...delivered,
      activityStatus: { type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' },
    };
    expect(upsEventResult(upsTrackingEventSchema.parse(pickup))).toMatchObject({
      status: 'available_for_pickup',
      deliveredAt: null,
    });
  });

  it('one event posted twice has one key; another scan another', () => {
    const a = upsTrackingEventSchema.parse(outForDelivery);
    expect(upsEventKey(a, outForDelivery)).toBe(upsEventKey(upsTrackingEventSchema.parse({ ...outForDelivery }), {}));
    expect(upsEventKey(a, outForDelivery)).not.toBe(upsEventKey(upsTrackingEventSchema.parse(delivered), delivered));
  });

  it('refuses what the spec does not allow', () => {
    expect(upsTrackingEventSchema.safeParse({ trackingNumber: '1Z204W4R0308071865' }).success).toBe(false);
    expect(upsTrackingEventSchema.safeParse({ ...delivered, trackingNumber: '9400111899223817240935' }).success).toBe(
      false,
    );
  });
});

describe('UPS Track Alert subscription answers', () => {
  it('200 lists the subscribed; everything not confirmed counts as refused', () => {
    expect(
      parseUpsSubscriptionResponse(['1Z1', '1Z2', '1Z3'], 200, {
        validTrackingNumbers: ['1Z1'],
        invalidTrackingNumbers: ['1Z2'],
      }),
    ).toEqual({ subscribed: ['1Z1'], refused: ['1Z2', '1Z3'] });
  });

  it('400 refuses the whole request; anything else is the carrier failing', () => {
    expect(parseUpsSubscriptionResponse(['1Z1'], 400, { response: { errors: [] } })).toEqual({
      subscribed: [],
      refused: ['1Z1'],
    });
    expect(() => parseUpsSubscriptionResponse(['1Z1'], 404, {})).toThrow(CarrierUnexpectedResponseError);
  });
});

describe('UPS Track Alert subscription request, on the wire', () => {
  let running: RunningCarrierSandbox;
  let spec: OpenApiSpec;
  const sent: Array<{ url: string; headers: Headers; body: unknown }> = [];

  beforeAll(async () => {
    running = await startCarrierSandbox();
    spec = await OpenApiSpec.load('ups-track-alert.openapi.yaml');
  });
  afterAll(() => running.close());

  const recordingFetch: typeof fetch = async (input, init) => {
    sent.push({
      url: String(input),
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' && init.body.startsWith('{') ? JSON.parse(init.body) : init?.body,
    });
    return fetch(input, init);
  };

  it('posts a PackageSubscriptionRequest with the OAuth token and the required headers', async () => {
    const client = createUpsClient({
      baseUrl: `${running.baseUrl}/ups`,
      clientId: 'doorstep',
      clientSecret: 'secret',
      fetch: recordingFetch,
    });
    expect(client.push?.maxBatchSize).toBe(100);
    const answer = await client.push!.subscribe(['1Z879E930346834440', '1Z5R89390357567127']);
    expect(answer).toEqual({ subscribed: ['1Z879E930346834440', '1Z5R89390357567127'], refused: [] });

    const request = sent.find((r) => r.url.includes('/subscription/'))!;
    expect(new URL(request.url).pathname).toBe('/sandbox/ups/api/track/v2/subscription/standard/package');
    expect(request.headers.get('authorization')).toMatch(/^Bearer /);
    expect(request.headers.get('transId')).toMatch(/^[0-9a-f]{32}$/);
    expect(request.headers.get('transactionSrc')).toBe('doorstep');
    expect(spec.validate(spec.requestSchema('/subscription/{type}/package', 'post'), request.body)).toEqual([]);
    expect(running.sandbox.state.push.isSubscribed('ups', '1Z879E930346834440')).toBe(true);
    expect(running.sandbox.state.carriers.ups.stats.subscribeCalls).toBe(1);
  });
});
