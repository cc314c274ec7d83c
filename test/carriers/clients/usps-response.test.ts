import { describe, expect, it } from 'vitest';
import {
  eventInstant,
  parseUspsV3Response,
  parseUspsV3r2Response,
} from '../../../src/carriers/clients/usps-response.ts';
import { normalizeUspsStatus } from '../../../src/carriers/clients/usps-status.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';
import { notFoundResult } from './not-found-result.ts';

const v3 = await OpenApiSpec.load('usps-tracking-v3.openapi.yaml');
const v3r2 = await OpenApiSpec.load('usps-tracking-v3r2.openapi.yaml');

describe('normalizeUspsStatus', () => {
  it.each([
    ['Delivered', 'delivered'],
    ['Out for Delivery', 'out_for_delivery'],
    ['In Transit', 'in_transit'],
    ['In-Transit', 'in_transit'],
    ['Accepted', 'in_transit'],
    ['Pre-Shipment', 'pre_transit'],
    ['Pre-Transit', 'pre_transit'],
    ['Delivery Attempt', 'in_transit'],
    ['Available for Pickup', 'available_for_pickup'],
    ['Alert', 'failure'],
    ['Return to Sender', 'return_to_sender'],
    ['delivered', 'delivered'],
    ['Something New', 'unknown'],
    ['', 'unknown'],
  ] as const)('%s → %s', (category, expected) => {
    expect(normalizeUspsStatus(category)).toBe(expected);
  });

  it('recognises a return from the status text when the category is only an alert', () => {
    expect(normalizeUspsStatus('Alert', 'Return to Sender Processed')).toBe('return_to_sender');
    expect(normalizeUspsStatus('Alert', 'Delivery Exception, Animal Interference')).toBe('failure');
  });

  it('reads a delivery back to the sender as a return, not a delivery (probe finding: it sent the video)', () => {
    expect(normalizeUspsStatus('Delivered', 'Delivered, To Original Sender')).toBe('return_to_sender');
    expect(normalizeUspsStatus('Delivered', 'Returned to Sender')).toBe('return_to_sender');
    expect(normalizeUspsStatus('Delivered', 'Delivered, In/At Mailbox')).toBe('delivered');
  });
});

describe('parseUspsV3Response', () => {
  // TrackingDetails with the yaml's examples: statusSummary, GMTTimestamp, GMTOffset '-7:00'.
  const body = {
    trackingNumber: '9261290485210000000000',
    mailClass: 'PRIORITY_MAIL',
    mailType: 'DOMESTIC_MAIL',
    status: 'Delivered, Front Door/Porch',
    statusCategory: 'Delivered',
    statusSummary: 'Your item was delivered at 12:55 pm on April 05, 2010 in FALMOUTH, MA 02540',
    destinationCity: 'FALMOUTH',
    destinationState: 'MA',
    destinationZIP: '02540',
    trackingEvents: [
      {
        eventType: 'Delivered, Front Door/Porch',
        eventCode: '01',
        eventTimestamp: '2024-04-04T07:03:12-07:00',
        GMTTimestamp: '2024-04-04T14:03:12.041Z',
        GMTOffset: '-7:00',
        eventCity: 'FALMOUTH',
      },
      {
        eventType: 'Out for Delivery',
        eventCode: 'OF',
        eventTimestamp: '2024-04-04T05:10:00-07:00',
        GMTOffset: '-7:00',
      },
    ],
  };

  it('is a body the spec allows', () => {
    expect(v3.validate(v3.responseSchema('/tracking/{trackingNumber}', 'get', 200), body)).toEqual([]);
  });

  it('reads status, delivery time and description', () => {
    expect(parseUspsV3Response('9261290485210000000000', body)).toEqual({
      trackingNumber: '9261290485210000000000',
      status: 'delivered',
      deliveredAt: new Date('2024-04-04T14:03:12.041Z'),
      estimatedDeliveryAt: null,
      estimatedWindowStartAt: null,
      lastEventAt: new Date('2024-04-04T14:03:12.041Z'),
      description: 'Delivered, Front Door/Porch',
      destination: { countryCode: null, state: 'MA', postalCode: '02540' },
    });
  });

  it('takes the estimate from the predicted window, else expectedDeliveryTimeStamp', () => {
    const inTransit = {
      statusCategory: 'In Transit',
      trackingEvents: [{ eventTimestamp: '2024-04-03T10:00:00', GMTOffset: '-7:00' }],
    };
    expect(
      parseUspsV3Response('9', {
        ...inTransit,
        predictedDeliveryDate: '2024-04-05',
        predictedDeliveryWindowEndTime: '3:30 pm',
      }).estimatedDeliveryAt,
    ).toEqual(new Date('2024-04-05T22:30:00Z'));
    expect(
      parseUspsV3Response('9', { ...inTransit, expectedDeliveryTimeStamp: '2024-04-05T20:00:00-07:00' })
        .estimatedDeliveryAt,
    ).toEqual(new Date('2024-04-06T03:00:00Z'));
    expect(parseUspsV3Response('9', { ...inTransit, predictedDeliveryDate: '2024-04-05' }).estimatedDeliveryAt).toEqual(
      new Date('2024-04-06T06:59:59Z'),
    );
  });
});

describe('parseUspsV3r2Response', () => {
  const found = {
    statusCode: '200',
    trackingNumber: '9400111899223197428490',
    statusCategory: 'Out for Delivery',
    status: 'Out for Delivery',
    destinationState: 'AZ',
    deliveryDateExpectation: {
      expectedDeliveryDate: '2024-04-04',
      predictedDeliveryDate: '2024-04-04',
      predictedDeliveryWindowStartTime: '10:00',
      predictedDeliveryWindowEndTime: '14:00',
    },
    servicesEligibility: { proofOfDeliveryEnabled: false, RREEnabled: false, trackingProofOfDeliveryEnabled: false },
    trackingEvents: [
      {
        eventType: 'Out for Delivery',
        eventCode: 'OF',
        eventTimestamp: '2024-04-04T06:10:00-07:00',
        GMTTimestamp: '2024-04-04T13:10:00Z',
        GMTOffset: '-7:00',
      },
    ],
  };
  const missing = {
    statusCode: '404',
    trackingNumber: '9400111899223197420000',
    apiVersion: 'v3r2',
    error: { code: '404', message: 'Tracking number not found' },
  };

  it('is a 207 body the spec allows', () => {
    expect(v3r2.validate(v3r2.responseSchema('/tracking', 'post', 207), [found, missing])).toEqual([]);
  });

  it('reads a multi-status answer item by item, in the order asked', () => {
    expect(parseUspsV3r2Response(['9400111899223197420000', '9400111899223197428490'], [found, missing])).toEqual([
      notFoundResult('9400111899223197420000', 'Tracking number not found'),
      {
        trackingNumber: '9400111899223197428490',
        status: 'out_for_delivery',
        deliveredAt: null,
        estimatedDeliveryAt: new Date('2024-04-04T21:00:00Z'),
        estimatedWindowStartAt: new Date('2024-04-04T17:00:00Z'),
        lastEventAt: new Date('2024-04-04T13:10:00Z'),
        description: 'Out for Delivery',
        // v3r2 no longer sends the ZIP (its yaml: "no longer available as of June 2025"); the state stays.
        destination: { countryCode: null, state: 'AZ', postalCode: null },
      },
    ]);
  });

  it('of two items for a reused number, a new label after an old delivery is the package, not the delivery (probe finding: it sent the video)', () => {
    const oldDelivery = {
      ...found,
      status: 'Delivered, Front Door/Porch',
      statusCategory: 'Delivered',
      deliveryDateExpectation: {},
      trackingEvents: [{ eventType: 'Delivered, Front Door/Porch', eventTimestamp: '2024-03-01T14:00:00-05:00' }],
    };
    const newLabel = {
      ...found,
      status: 'Pre-Shipment Info Sent to USPS',
      statusCategory: 'Pre-Shipment',
      deliveryDateExpectation: {},
      trackingEvents: [],
    };
    for (const items of [
      [oldDelivery, newLabel],
      [newLabel, oldDelivery],
    ])
      expect(parseUspsV3r2Response(['9400111899223197428490'], items)[0]).toMatchObject({
        status: 'pre_transit',
        deliveredAt: null,
      });
  });

  it('a delivery after a "Return to Sender" event is the return, not the gift delivered (probe finding)', () => {
    const backToSender = {
      ...found,
      status: 'Delivered, Front Door/Porch',
      statusCategory: 'Delivered',
      trackingEvents: [
        { eventType: 'Delivered, Front Door/Porch', eventTimestamp: '2026-11-28T14:00:00-05:00' },
        { eventType: 'Return to Sender Processed', eventTimestamp: '2026-11-25T09:00:00-05:00' },
      ],
    };
    expect(parseUspsV3r2Response(['9400111899223197428490'], [backToSender])[0]).toMatchObject({
      status: 'return_to_sender',
      deliveredAt: null,
    });
  });

  it('one item written oddly answers nothing for its number; the others in the batch are still read (probe finding)', () => {
    const odd = {
      ...found,
      trackingNumber: '9400111899223197420000',
      trackingEvents: [{ eventType: 'Accepted', GMTOffset: -5 }],
    };
    const results = parseUspsV3r2Response(['9400111899223197420000', '9400111899223197428490'], [odd, found]);
    expect(results.map((result) => result.status)).toEqual(['unknown', 'out_for_delivery']);
    expect(() => parseUspsV3r2Response(['9400111899223197420000'], [odd])).toThrow(/no item we can read/);
  });

  it('reads event dates given as bare dates (AllEventDate allows them)', () => {
    const dateOnly = { ...found, trackingEvents: [{ eventType: 'Accepted', eventTimestamp: '2024-04-02' }] };
    expect(parseUspsV3r2Response(['9400111899223197428490'], [dateOnly])[0]?.lastEventAt).toEqual(
      new Date('2024-04-02T23:59:59Z'),
    );
  });
});

describe('eventInstant', () => {
  it('completes an offset-less local eventTimestamp with GMTOffset', () => {
    expect(eventInstant({ eventTimestamp: '2024-04-04T07:03:12', GMTOffset: '-7:00' })).toEqual(
      new Date('2024-04-04T14:03:12Z'),
    );
  });
});
