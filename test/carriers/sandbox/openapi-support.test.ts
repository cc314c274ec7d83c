import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OpenApiSpec, SPEC_DIR } from './support/openapi.ts';

const uspsV3r2 = await OpenApiSpec.load('usps-tracking-v3r2.openapi.yaml');
const fedex = await OpenApiSpec.load('fedex-track.openapi.json');

/** The wire-format tests are only as good as the spec reader and validator; these keep them honest. */
describe('spec reader', () => {
  it('reads the UPS yaml, including its unpadded gmtTime example and the tab after `default:`', () => {
    const document = parse(readFileSync(new URL('ups-tracking.openapi.yaml', SPEC_DIR), 'utf8')) as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    expect(document['components']?.['schemas']?.['Activity']).toMatchObject({
      properties: { gmtTime: { type: 'string', example: '74700' } },
    });
  });

  it('reads sequences written at their key\u2019s indentation and block scalars', () => {
    expect(
      parse(
        'a:\n  security:\n  - OAuth:\n    - tracking\n  text: |-\n    line one\n    line two\n  b: "quoted\n    across lines"\n',
      ),
    ).toEqual({
      a: { security: [{ OAuth: ['tracking'] }], text: 'line one\nline two', b: 'quoted across lines' },
    });
  });

  // YAML 1.2: `-7:00` (the USPS GMTOffset example) stays a string; a YAML 1.1 reader makes it -420.
  it('reads flow collections and typed plain scalars', () => {
    expect(parse("x: { }\ny: [a, 'b', \"c\"]\nz: 35\nw: -7:00\nv: 'it''s'\n")).toEqual({
      x: {},
      y: ['a', 'b', 'c'],
      z: 35,
      w: '-7:00',
      v: "it's",
    });
  });
});

describe('spec validator', () => {
  const detail = {
    trackingNumber: '9400111899223197428490',
    servicesEligibility: { proofOfDeliveryEnabled: false, RREEnabled: false, trackingProofOfDeliveryEnabled: false },
    trackingEvents: [{ eventType: 'Delivered', eventZIPCode: '07470' }],
  };

  it('accepts a conforming v3r2 TrackingDetail (allOf read as one object, though SharedTrackingDetail is closed)', () => {
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), detail)).toEqual([]);
  });

  it('rejects a field the v3r2 schema closes out (v3 name eventZIP), in an event and on the merged object', () => {
    expect(
      uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, trackingEvents: [{ eventZIP: '07470' }] }),
    ).toEqual(['$.trackingEvents[0]: must NOT have additional properties (eventZIP)']);
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, destinationZIP: '07470' })).toEqual([
      '$: must NOT have additional properties (destinationZIP)',
    ]);
  });

  it('rejects a missing required field, a wrong type, a broken pattern, an enum miss and a malformed date-time', () => {
    expect(
      uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, servicesEligibility: { RREEnabled: 'no' } }),
    ).toEqual([
      "$.servicesEligibility: must have required property 'proofOfDeliveryEnabled'",
      "$.servicesEligibility: must have required property 'trackingProofOfDeliveryEnabled'",
      '$.servicesEligibility.RREEnabled: must be boolean',
    ]);
    expect(
      uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, trackingEvents: [{ eventZIPCode: '7470' }] }),
    ).toEqual(['$.trackingEvents[0].eventZIPCode: must match pattern "^\\d{5}$"']);
    expect(fedex.validate(fedex.schema('ScanEvent'), { locationType: 'MOON_BASE' })[0]).toMatch(
      /^\$\.locationType: must be equal to one of the allowed values \["AIRPORT",/,
    );
    // eventTimestamp is oneOf [date, date-time]; RFC 3339 wants the T and, for a date-time, an offset.
    for (const eventTimestamp of ['2025-06-03 16:20', '2025-06-03T16:20:00']) {
      expect(
        uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, trackingEvents: [{ eventTimestamp }] }),
      ).toEqual([
        '$.trackingEvents[0].eventTimestamp: must match format "date"',
        '$.trackingEvents[0].eventTimestamp: must match format "date-time"',
        '$.trackingEvents[0].eventTimestamp: must match a schema in anyOf',
      ]);
    }
  });

  it('rejects an array longer than maxItems', () => {
    const tooMany = Array.from({ length: 36 }, () => ({ trackingNumber: '9400111899223197428490' }));
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingRequest'), tooMany)).toEqual([
      '$: must NOT have more than 35 items',
    ]);
  });

  it('reads oneOf as anyOf: a 207 success item also satisfies the all-optional FailureResponse', () => {
    const schema = uspsV3r2.responseSchema('/tracking', 'post', 207);
    expect(uspsV3r2.validate(schema, [{ statusCode: '200', ...detail }])).toEqual([]);
    expect(uspsV3r2.validate(schema, [{ statusCode: 404 }])).not.toEqual([]);
  });
});
