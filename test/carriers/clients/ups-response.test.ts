import { describe, expect, it } from 'vitest';
import { CarrierUnexpectedResponseError } from '../../../src/carriers/clients/errors.ts';
import { activityInstant, parseUpsTrackResponse } from '../../../src/carriers/clients/ups-response.ts';
import { normalizeUpsStatus, upsPackageStatus } from '../../../src/carriers/clients/ups-status.ts';
import { OpenApiSpec } from '../sandbox/support/openapi.ts';
import { notFoundResult } from './not-found-result.ts';

const spec = await OpenApiSpec.load('ups-tracking.openapi.yaml');
const trackResponseSchema = spec.responseSchema('/track/v1/details/{inquiryNumber}', 'get', 200);

describe('normalizeUpsStatus', () => {
  it.each([
    [{ type: 'D', code: 'FS' }, 'delivered'],
    [{ type: 'I', code: 'OT' }, 'out_for_delivery'],
    [{ type: 'I', code: 'DP' }, 'in_transit'],
    [{ type: 'P', code: 'PU' }, 'in_transit'],
    [{ type: 'M', code: 'MP' }, 'pre_transit'],
    [{ type: 'MV' }, 'failure'],
    [{ type: 'X', code: 'SR' }, 'failure'],
    [{ type: 'RS' }, 'return_to_sender'],
    [{ type: 'D', code: '2Q' }, 'available_for_pickup'],
    [{ type: 'X', code: '1Z' }, 'available_for_pickup'],
    // An Access Point code we do not list: the words say the recipient has yet to collect it.
    [
      { type: 'D', code: 'KB', description: 'Delivered to UPS Access Point™ - Awaiting Customer Pickup' },
      'available_for_pickup',
    ],
    [{ type: 'D', code: 'FS', description: 'Picked up by the receiver at UPS Access Point™' }, 'delivered'],
    // Tracking probe (2026-12-07): UPS's words name the Access Point and nothing else; the code is not ours.
    [{ type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' }, 'available_for_pickup'],
    [{ type: 'D', code: 'KB', simplifiedTextDescription: 'Delivered to UPS Access Point™' }, 'available_for_pickup'],
    [{ type: 'D', code: 'KB', description: 'Delivered to The UPS Store®' }, 'available_for_pickup'],
    [{ type: 'D', code: 'ZP', description: 'Delivered' }, 'available_for_pickup'],
    [{ type: 'D', code: 'KB', description: 'The receiver picked up the package at The UPS Store®' }, 'delivered'],
    // A building's parcel locker is the recipient's own address: UPS scans no collection from it.
    [{ type: 'D', code: 'FS', description: 'DELIVERED - Left in parcel locker' }, 'delivered'],
    [{ type: 'D', code: 'FS', description: 'DELIVERED TO NEIGHBOR' }, 'delivered'],
    [{ type: 'NA' }, 'unknown'],
    [{ type: 'Q' }, 'unknown'],
    [{ type: 'd', code: ' ot ' }, 'out_for_delivery'],
    [{}, 'unknown'],
  ] as const)('%o → %s', (status, expected) => {
    expect(normalizeUpsStatus(status)).toBe(expected);
  });

  it('treats a missing status as unknown', () => {
    expect(normalizeUpsStatus(null)).toBe('unknown');
  });
});

describe('upsPackageStatus', () => {
  const at = (iso: string) => new Date(iso);

  it('is delivered when either the current status or the newest activity says D (docs/carriers/NOTES.md)', () => {
    expect(
      upsPackageStatus({ type: 'I', code: 'OT' }, [{ status: { type: 'D' }, at: at('2026-12-07T15:00:00Z') }]),
    ).toBe('delivered');
    // Undated activities: nothing says which came last, so UPS's D stands.
    expect(upsPackageStatus({ type: 'D' }, [{ status: { type: 'I' }, at: null }])).toBe('delivered');
    expect(upsPackageStatus({ type: 'D' })).toBe('delivered');
  });

  it('prefers the current status, falling back to the newest activity', () => {
    expect(upsPackageStatus({ type: 'I', code: 'OT' }, [{ status: { type: 'I', code: 'AR' }, at: null }])).toBe(
      'out_for_delivery',
    );
    expect(upsPackageStatus({ type: 'NA' }, [{ status: { type: 'M' }, at: null }])).toBe('pre_transit');
    expect(upsPackageStatus(undefined, [{ status: { type: 'X' }, at: null }])).toBe('failure');
  });

  describe('a stale D in currentStatus beside a newer dated activity (tracking probe, 2026-12-07)', () => {
    const delivered = { status: { type: 'D', code: 'KB', description: 'DELIVERED' }, at: at('2026-12-06T20:00:00Z') };
    const after = (status: { type: string; code?: string; description?: string }) => ({
      status,
      at: at('2026-12-07T16:00:00Z'),
    });

    it.each([
      [{ type: 'I', code: 'OT', description: 'Out For Delivery Today' }, 'out_for_delivery'],
      [{ type: 'O', description: 'Out For Delivery Today' }, 'out_for_delivery'],
      [{ type: 'X', code: 'U2', description: 'The delivery was refused' }, 'failure'],
      [{ type: 'I', code: 'AR', description: 'Arrived at Facility' }, 'in_transit'],
      [{ type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' }, 'available_for_pickup'],
    ] as const)('the newer activity %o says %s', (status, expected) => {
      // In either listed order: UPS's "most recent first" is not trusted.
      expect(upsPackageStatus({ type: 'D', code: 'KB' }, [after(status), delivered])).toBe(expected);
      expect(upsPackageStatus({ type: 'D', code: 'KB' }, [delivered, after(status)])).toBe(expected);
    });

    it('stays delivered when the later activity is nothing we read, or at the delivery time itself', () => {
      expect(upsPackageStatus({ type: 'D' }, [after({ type: 'NA' }), delivered])).toBe('delivered');
      const sameTime = { status: { type: 'I', code: 'OT' }, at: delivered.at };
      expect(upsPackageStatus({ type: 'D' }, [sameTime, delivered])).toBe('delivered');
    });

    it('without a delivery activity, dates the delivery by deliveryDate DEL when UPS gives one', () => {
      const outForDelivery = after({ type: 'I', code: 'OT' });
      expect(upsPackageStatus({ type: 'D' }, [outForDelivery], at('2026-12-06T23:59:59Z'))).toBe('out_for_delivery');
      expect(upsPackageStatus({ type: 'D' }, [outForDelivery], at('2026-12-07T17:00:00Z'))).toBe('delivered');
      expect(upsPackageStatus({ type: 'D' }, [outForDelivery])).toBe('delivered');
    });
  });
});

describe('UPS statuses a probe met (issue 30, worlds we did not write)', () => {
  const answer = (pkg: Record<string, unknown>) => ({
    trackResponse: {
      shipment: [{ inquiryNumber: '1Z023E2X0214323462', package: [{ trackingNumber: '1Z023E2X0214323462', ...pkg }] }],
    },
  });

  it('a delivery after a return to the shipper is the return, not the gift delivered (it sent the video)', () => {
    const body = answer({
      currentStatus: { type: 'RS', description: 'Returned to Sender' },
      activity: [
        { date: '20261128', time: '100000', status: { type: 'D', description: 'DELIVERED' } },
        { date: '20261126', time: '100000', status: { type: 'RS', description: 'Returned to shipper' } },
        { date: '20261125', time: '100000', status: { type: 'X', description: 'The receiver refused the delivery' } },
      ],
    });
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toMatchObject({
      status: 'return_to_sender',
      deliveredAt: null,
    });
  });

  it('a current status without a type is read from its words: delivered without any activity', () => {
    const body = answer({
      currentStatus: {
        code: '011',
        statusCode: '011',
        description: 'Delivered',
        simplifiedTextDescription: 'Delivered',
      },
      deliveryDate: [{ type: 'DEL', date: '20261128' }],
    });
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body).status).toBe('delivered');
  });

  it('a stale Delivered in currentStatus does not beat a newer Out For Delivery, nor send with the old time', () => {
    // The probe's world: delivered 20 h ago by currentStatus, "Out For Delivery Today" 10 min ago.
    const body = answer({
      currentStatus: { type: 'D', code: 'KB', description: 'Delivered' },
      activity: [
        {
          gmtDate: '20261207',
          gmtTime: '160044',
          status: { type: 'I', code: 'OT', description: 'Out For Delivery Today' },
        },
        { gmtDate: '20261206', gmtTime: '201044', status: { type: 'D', code: 'KB', description: 'DELIVERED' } },
      ],
    });
    expect(spec.validate(trackResponseSchema, body)).toEqual([]);
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toMatchObject({
      status: 'out_for_delivery',
      deliveredAt: null,
      lastEventAt: new Date('2026-12-07T16:00:44Z'),
      description: 'Out For Delivery Today',
    });
  });

  it('a package delivered twice (Access Point, then collected) is delivered at the collection', () => {
    const body = answer({
      currentStatus: { type: 'D', code: 'KB', description: 'Delivered' },
      activity: [
        {
          gmtDate: '20261205',
          gmtTime: '150000',
          status: { type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' },
        },
        {
          gmtDate: '20261207',
          gmtTime: '120000',
          status: { type: 'D', code: 'KB', description: 'Picked up by the receiver at UPS Access Point™' },
        },
      ],
    });
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toMatchObject({
      status: 'delivered',
      deliveredAt: new Date('2026-12-07T12:00:00Z'),
    });
  });

  it('"Delivered to UPS Access Point™" (D, 2W) waits for pickup: no delivery, no delivered time', () => {
    const body = answer({
      currentStatus: { type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' },
      activity: [
        {
          gmtDate: '20261207',
          gmtTime: '160044',
          status: { type: 'D', code: '2W', description: 'Delivered to UPS Access Point™' },
        },
      ],
    });
    expect(spec.validate(trackResponseSchema, body)).toEqual([]);
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toMatchObject({
      status: 'available_for_pickup',
      deliveredAt: null,
      description: 'Delivered to UPS Access Point™',
    });
  });

  it('activities listed oldest first: the newest by date decides, not the first listed', () => {
    const body = answer({
      activity: [
        { date: '20261125', time: '080000', status: { type: 'M', description: 'Shipper created a label' } },
        { date: '20261126', time: '080000', status: { type: 'I', description: 'Departed from facility' } },
        { date: '20261128', time: '140000', status: { type: 'D', description: 'DELIVERED' } },
      ],
    });
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toMatchObject({
      status: 'delivered',
      deliveredAt: new Date('2026-11-28T14:00:00Z'),
    });
  });
});

describe('parseUpsTrackResponse', () => {
  it('reads the TW0001 warning in a 200 as not found', () => {
    const body = {
      trackResponse: {
        shipment: [
          {
            inquiryNumber: '1Z023E2X0214323462',
            warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }],
          },
        ],
      },
    };
    expect(spec.validate(trackResponseSchema, body)).toEqual([]);
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toEqual(
      notFoundResult('1Z023E2X0214323462', 'Tracking Information Not Found'),
    );
  });

  it('reads a package built from the spec examples', () => {
    // Values are the yaml's own examples (Activity, Status, Location, Shipment.inquiryNumber).
    const body = {
      trackResponse: {
        shipment: [
          {
            inquiryNumber: '1Z023E2X0214323462',
            package: [
              {
                trackingNumber: '1Z023E2X0214323462',
                currentStatus: {
                  code: 'SR',
                  description: 'Your package was released by the customs agency.',
                  simplifiedTextDescription: 'Delivered',
                  statusCode: '003',
                  type: 'X',
                },
                activity: [
                  {
                    date: '20210210',
                    time: '071356',
                    gmtDate: '20210210',
                    gmtOffset: '-05:00',
                    gmtTime: '74700',
                    location: {
                      address: {
                        city: 'Wayne',
                        stateProvince: 'NJ',
                        postalCode: '07470',
                        country: 'US',
                        countryCode: 'US',
                      },
                      slic: '8566',
                    },
                    status: {
                      code: 'SR',
                      description: 'Your package was released by the customs agency.',
                      statusCode: '003',
                      type: 'X',
                    },
                  },
                ],
                deliveryDate: [{ type: 'SDD', date: '20210212' }],
                deliveryTime: { type: 'EDW', startTime: '090000', endTime: '130000' },
                packageCount: 2,
                packageAddress: [
                  {
                    type: 'ORIGIN',
                    address: { city: 'Atlanta', stateProvince: 'GA', postalCode: '30328', countryCode: 'US' },
                  },
                  {
                    type: 'DESTINATION',
                    name: 'Sears',
                    address: { city: 'Wayne', stateProvince: 'NJ', postalCode: '07470', countryCode: 'US' },
                  },
                ],
              },
            ],
          },
        ],
      },
    };
    expect(spec.validate(trackResponseSchema, body)).toEqual([]);
    expect(parseUpsTrackResponse('1Z023E2X0214323462', body)).toEqual({
      trackingNumber: '1Z023E2X0214323462',
      status: 'failure',
      deliveredAt: null,
      // 13:00:00 on the scheduled date, at the activities' offset (-05:00).
      estimatedDeliveryAt: new Date('2021-02-12T18:00:00Z'),
      estimatedWindowStartAt: new Date('2021-02-12T14:00:00Z'),
      // gmtDate + gmtTime are UTC; '74700' is 07:47:00.
      lastEventAt: new Date('2021-02-10T07:47:00Z'),
      description: 'Your package was released by the customs agency.',
      // The DESTINATION entry, not the ORIGIN one; never the name.
      destination: { countryCode: 'US', state: 'NJ', postalCode: '07470' },
    });
  });

  it('takes the delivered time from the D activity, else from deliveryDate/deliveryTime DEL', () => {
    const delivered = (activity: Record<string, string>) => ({
      trackResponse: {
        shipment: [
          {
            package: [
              {
                currentStatus: { type: 'D', description: 'DELIVERED' },
                activity: [{ ...activity, status: { type: 'D', description: 'DELIVERED' } }],
                deliveryDate: [{ type: 'DEL', date: '20250604' }],
                deliveryTime: { type: 'DEL', endTime: '134217' },
              },
            ],
          },
        ],
      },
    });
    expect(
      parseUpsTrackResponse('1Z', delivered({ date: '20250604', time: '134217', gmtOffset: '-05:00' })).deliveredAt,
    ).toEqual(new Date('2025-06-04T18:42:17Z'));
    // No usable activity time: the DEL date and time, at the package's offset.
    expect(parseUpsTrackResponse('1Z', delivered({ gmtOffset: '-04:00' })).deliveredAt).toEqual(
      new Date('2025-06-04T17:42:17Z'),
    );
  });

  it('dates a delivery UPS gives only a day for at the end of that day, not at the moment of the poll', () => {
    const body = {
      trackResponse: {
        shipment: [
          {
            package: [
              {
                currentStatus: { type: 'D', description: 'DELIVERED' },
                activity: [{ date: '20250604', gmtOffset: '-04:00', status: { type: 'D', description: 'DELIVERED' } }],
              },
            ],
          },
        ],
      },
    };
    expect(parseUpsTrackResponse('1Z', body).deliveredAt).toEqual(new Date('2025-06-05T03:59:59Z'));
  });

  it('prefers the rescheduled date, and the end of that day when no window is given', () => {
    const body = {
      trackResponse: {
        shipment: [
          {
            package: [
              {
                currentStatus: { type: 'I' },
                activity: [{ date: '20250601', time: '100000', gmtOffset: '+00:00', status: { type: 'I' } }],
                deliveryDate: [
                  { type: 'SDD', date: '20250603' },
                  { type: 'RDD', date: '20250605' },
                ],
              },
            ],
          },
        ],
      },
    };
    expect(parseUpsTrackResponse('1Z', body).estimatedDeliveryAt).toEqual(new Date('2025-06-05T23:59:59Z'));
  });

  it('accepts the nulls UPS sends for empty fields', () => {
    const body = {
      trackResponse: {
        shipment: [
          {
            inquiryNumber: '1Z',
            package: [
              {
                trackingNumber: '1Z',
                currentStatus: { type: 'I', code: null },
                deliveryDate: [{ date: null, type: null }],
                activity: null,
              },
            ],
          },
        ],
      },
    };
    expect(parseUpsTrackResponse('1Z', body)).toMatchObject({
      status: 'in_transit',
      estimatedDeliveryAt: null,
      lastEventAt: null,
    });
  });

  it('rejects a body that is not a TrackApiResponse', () => {
    expect(() => parseUpsTrackResponse('1Z', { response: { errors: [] } })).toThrow(CarrierUnexpectedResponseError);
  });
});

describe('activityInstant', () => {
  it('reads the gmt fields as UTC, in either time spelling', () => {
    expect(
      activityInstant({
        gmtDate: '20240318',
        gmtTime: '11:49:17',
        gmtOffset: '+01:00',
        date: '20240318',
        time: '124917',
      }),
    ).toEqual(new Date('2024-03-18T11:49:17Z'));
  });

  it('falls back to local date and time at gmtOffset', () => {
    expect(activityInstant({ date: '20240318', time: '124917', gmtOffset: '+01:00' })).toEqual(
      new Date('2024-03-18T11:49:17Z'),
    );
  });
});
