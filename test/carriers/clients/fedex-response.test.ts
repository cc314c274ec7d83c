import { describe, expect, it } from 'vitest';
import { parseFedexTrackResponse } from '../../../src/carriers/clients/fedex-response.ts';
import { FEDEX_STATUS_CODES, normalizeFedexStatus } from '../../../src/carriers/clients/fedex-status.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';
import { notFoundResult } from './not-found-result.ts';

const spec = await OpenApiSpec.load('fedex-track.openapi.json');
const responseSchema = spec.responseSchema('/track/v1/trackingnumbers', 'post', 200);

describe('normalizeFedexStatus', () => {
  it.each([
    ['DL', 'delivered'],
    ['OD', 'out_for_delivery'],
    ['IT', 'in_transit'],
    ['AR', 'in_transit'],
    ['DP', 'in_transit'],
    ['AF', 'in_transit'],
    ['PU', 'in_transit'],
    ['OC', 'pre_transit'],
    ['DE', 'failure'],
    ['SE', 'failure'],
    ['CA', 'failure'],
    ['RS', 'return_to_sender'],
    ['HL', 'available_for_pickup'],
    ['HP', 'available_for_pickup'],
    ['ZZ', 'unknown'],
    ['', 'unknown'],
    ['dl', 'delivered'],
  ] as const)('%s → %s', (code, expected) => {
    expect(normalizeFedexStatus(code)).toBe(expected);
  });

  it('falls back to derivedCode for a code it does not know', () => {
    expect(normalizeFedexStatus('XX', 'IT')).toBe('in_transit');
    expect(normalizeFedexStatus(null, 'DL')).toBe('delivered');
    expect(normalizeFedexStatus('OD', 'IT')).toBe('out_for_delivery');
  });

  it('maps every code docs/carriers/NOTES.md names', () => {
    for (const code of ['DL', 'OD', 'IT', 'AR', 'DP', 'AF', 'PU', 'DE', 'SE', 'RS', 'CA'])
      expect(FEDEX_STATUS_CODES.has(code)).toBe(true);
  });
});

describe('parseFedexTrackResponse', () => {
  // Built from fedex-track.openapi.json's own examples: TrackResult fields, the NOTFOUND error text
  // from its 400 example, which in practice comes per result inside a 200 (docs/carriers/NOTES.md).
  const body = {
    transactionId: '624deea6-b709-470c-8c39-4b5511281492',
    customerTransactionId: 'AnyCo_order123456789',
    output: {
      completeTrackResults: [
        {
          trackingNumber: '123456789012',
          trackResults: [
            {
              trackingNumberInfo: {
                trackingNumber: '123456789012',
                carrierCode: 'FDXE',
                trackingNumberUniqueId: '245822~123456789012~FDEG',
              },
              latestStatusDetail: {
                code: 'PU',
                derivedCode: 'PU',
                statusByLocale: 'Picked up',
                description: 'Picked up',
                scanLocation: {
                  city: 'SEATTLE',
                  stateOrProvinceCode: 'WA',
                  postalCode: '98101',
                  countryCode: 'US',
                  residential: false,
                },
              },
              dateAndTimes: [{ type: 'ESTIMATED_DELIVERY', dateTime: '2018-02-05T00:00:00' }],
              recipientInformation: {
                address: { city: 'DALLAS', stateOrProvinceCode: 'TX', postalCode: '75063', countryCode: 'US' },
              },
              scanEvents: [
                {
                  date: '2018-02-02T12:01:00-07:00',
                  eventType: 'PU',
                  eventDescription: 'Picked Up',
                  derivedStatusCode: 'PU',
                  derivedStatus: 'Picked Up',
                  locationType: 'PICKUP_LOCATION',
                },
                {
                  date: '2018-02-01T18:30:00-07:00',
                  eventType: 'OC',
                  eventDescription: 'Shipment information sent to FedEx',
                  derivedStatusCode: 'IN',
                },
              ],
              estimatedDeliveryTimeWindow: {
                description: 'Description field',
                window: { begins: '2018-02-05T08:00:00', ends: '2018-02-05T12:00:00-06:00' },
                type: 'ESTIMATED_DELIVERY',
              },
            },
          ],
        },
        {
          trackingNumber: '920241085725456',
          trackResults: [
            {
              trackingNumberInfo: { trackingNumber: '920241085725456', trackingNumberUniqueId: '' },
              error: {
                code: 'TRACKING.TRACKINGNUMBER.NOTFOUND',
                message: 'Tracking number cannot be found. Please correct the tracking number and try again.',
              },
            },
          ],
        },
      ],
    },
  };

  it('is a body the spec allows', () => {
    expect(spec.validate(responseSchema, body)).toEqual([]);
  });

  it('reads found results and NOTFOUND errors inside the same 200', () => {
    expect(parseFedexTrackResponse(['123456789012', '920241085725456'], body)).toEqual([
      {
        trackingNumber: '123456789012',
        status: 'in_transit',
        deliveredAt: null,
        // The window's end wins over the offset-less ESTIMATED_DELIVERY date.
        estimatedDeliveryAt: new Date('2018-02-05T18:00:00Z'),
        // begins has no offset; it is read at the offset of ends (-06:00).
        estimatedWindowStartAt: new Date('2018-02-05T14:00:00Z'),
        lastEventAt: new Date('2018-02-02T19:01:00Z'),
        description: 'Picked up',
        destination: { countryCode: 'US', state: 'TX', postalCode: '75063' },
      },
      notFoundResult(
        '920241085725456',
        'Tracking number cannot be found. Please correct the tracking number and try again.',
      ),
    ]);
  });

  it('reads offset-less dateAndTimes at the offset of the scans', () => {
    const delivered = {
      output: {
        completeTrackResults: [
          {
            trackingNumber: '123456789012',
            trackResults: [
              {
                latestStatusDetail: { code: 'DL', description: 'Delivered' },
                dateAndTimes: [{ type: 'ACTUAL_DELIVERY', dateTime: '2018-02-03T14:05:00' }],
                scanEvents: [{ date: '2018-02-03T14:05:00-07:00', eventType: 'DL' }],
              },
            ],
          },
        ],
      },
    };
    expect(parseFedexTrackResponse(['123456789012'], delivered)[0]).toMatchObject({
      status: 'delivered',
      deliveredAt: new Date('2018-02-03T21:05:00Z'),
      estimatedDeliveryAt: null,
    });
  });

  it('reads a delivery after a return-to-shipper scan as a return: the shipper got it back (probe finding)', () => {
    const returned = (scanEvents: { date: string; eventType: string }[]) => ({
      output: {
        completeTrackResults: [
          {
            trackingNumber: '123456789012',
            trackResults: [{ latestStatusDetail: { code: 'DL', description: 'Delivered' }, scanEvents }],
          },
        ],
      },
    });
    const backToShipper = returned([
      { date: '2018-02-09T10:00:00-07:00', eventType: 'DL' },
      { date: '2018-02-05T09:00:00-07:00', eventType: 'RS' },
      { date: '2018-02-03T14:05:00-07:00', eventType: 'DE' },
    ]);
    expect(parseFedexTrackResponse(['123456789012'], backToShipper)[0]).toMatchObject({
      status: 'return_to_sender',
      deliveredAt: null,
    });
    const delivered = returned([{ date: '2018-02-03T14:05:00-07:00', eventType: 'DL' }]);
    expect(parseFedexTrackResponse(['123456789012'], delivered)[0]?.status).toBe('delivered');
  });

  it('picks the most recently active shipment when FedEx returns duplicates', () => {
    const result = (code: string, date: string) => ({ latestStatusDetail: { code }, scanEvents: [{ date }] });
    const duplicates = {
      output: {
        completeTrackResults: [
          {
            trackingNumber: '123456789012',
            trackResults: [result('DL', '2017-05-01T10:00:00Z'), result('OD', '2018-02-03T08:00:00Z')],
          },
        ],
      },
    };
    expect(parseFedexTrackResponse(['123456789012'], duplicates)[0]?.status).toBe('out_for_delivery');
  });

  it('of duplicates, a label not yet scanned after an old delivery is the package, not the old delivery (probe finding: it sent the video)', () => {
    const oldDelivery = {
      latestStatusDetail: { code: 'DL', description: 'Delivered' },
      dateAndTimes: [{ type: 'ACTUAL_DELIVERY', dateTime: '2024-03-01T14:00:00-05:00' }],
      scanEvents: [{ date: '2024-03-01T14:00:00-05:00', eventType: 'DL' }],
    };
    const newLabel = { latestStatusDetail: { code: 'OC', description: 'Label created' }, scanEvents: [] };
    for (const trackResults of [
      [oldDelivery, newLabel],
      [newLabel, oldDelivery],
    ]) {
      const answer = { output: { completeTrackResults: [{ trackingNumber: '123456789012', trackResults }] } };
      expect(parseFedexTrackResponse(['123456789012'], answer)[0]).toMatchObject({
        status: 'pre_transit',
        deliveredAt: null,
      });
    }
    // Beside a journey still moving, a label never scanned is an old one: the journey is the package.
    const moving = {
      latestStatusDetail: { code: 'IT', description: 'In transit' },
      scanEvents: [{ date: '2026-11-27T08:00:00-05:00', eventType: 'IT' }],
    };
    const answer = {
      output: { completeTrackResults: [{ trackingNumber: '123456789012', trackResults: [newLabel, moving] }] },
    };
    expect(parseFedexTrackResponse(['123456789012'], answer)[0]?.status).toBe('in_transit');
  });

  it('answers unknown for a number FedEx left out of its answer', () => {
    expect(parseFedexTrackResponse(['111111111111'], { output: { completeTrackResults: [] } })).toEqual([
      {
        trackingNumber: '111111111111',
        status: 'unknown',
        deliveredAt: null,
        estimatedDeliveryAt: null,
        estimatedWindowStartAt: null,
        lastEventAt: null,
        description: null,
        destination: null,
      },
    ]);
  });

  it('matches numbers regardless of spacing and case', () => {
    expect(parseFedexTrackResponse([' 1234 5678 9012 '], body)[0]?.status).toBe('in_transit');
  });
});
