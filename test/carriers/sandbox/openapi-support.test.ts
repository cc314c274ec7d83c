import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OpenApiSpec, SPEC_DIR } from './support/openapi.ts';
import { parseYaml } from './support/yaml.ts';

/** The wire-format tests are only as good as the spec reader and validator; these keep them honest. */
describe('spec reader', () => {
  it('reads the UPS yaml, including its unpadded gmtTime example and the tab after `default:`', () => {
    const document = parseYaml(readFileSync(`${SPEC_DIR}/ups-tracking.openapi.yaml`, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
    expect(document['components']?.['schemas']?.['Activity']).toMatchObject({ properties: { gmtTime: { type: 'string', example: '74700' } } });
  });

  it('reads sequences written at their key\u2019s indentation and block scalars', () => {
    expect(parseYaml('a:\n  security:\n  - OAuth:\n    - tracking\n  text: |-\n    line one\n    line two\n  b: "quoted\n    across lines"\n')).toEqual({
      a: { security: [{ OAuth: ['tracking'] }], text: 'line one\nline two', b: 'quoted across lines' },
    });
  });

  it('reads flow collections and typed plain scalars', () => {
    expect(parseYaml("x: { }\ny: [a, 'b', \"c\"]\nz: 35\nw: -7:00\nv: 'it''s'\n")).toEqual({ x: {}, y: ['a', 'b', 'c'], z: 35, w: '-7:00', v: "it's" });
  });
});

describe('spec validator', () => {
  const uspsV3r2 = OpenApiSpec.load('usps-tracking-v3r2.openapi.yaml');
  const fedex = OpenApiSpec.load('fedex-track.openapi.json');
  const detail = {
    trackingNumber: '9400111899223197428490',
    servicesEligibility: { proofOfDeliveryEnabled: false, RREEnabled: false, trackingProofOfDeliveryEnabled: false },
    trackingEvents: [{ eventType: 'Delivered', eventZIPCode: '07470' }],
  };

  it('accepts a conforming v3r2 TrackingDetail', () => {
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), detail)).toEqual([]);
  });

  it('rejects a field the v3r2 schema closes out (v3 name eventZIP)', () => {
    const problems = uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, trackingEvents: [{ eventZIP: '07470' }] });
    expect(problems).toEqual(['$.trackingEvents[0]: eventZIP is not allowed']);
  });

  it('rejects a missing required field, a wrong type, a broken pattern and an enum miss', () => {
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, servicesEligibility: { RREEnabled: 'no' } })).toEqual([
      '$.servicesEligibility: missing required proofOfDeliveryEnabled',
      '$.servicesEligibility: missing required trackingProofOfDeliveryEnabled',
      '$.servicesEligibility.RREEnabled: expected boolean, got "no"',
    ]);
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingDetail'), { ...detail, trackingEvents: [{ eventZIPCode: '7470' }] })).toEqual([
      '$.trackingEvents[0].eventZIPCode: "7470" does not match ^\\d{5}$',
    ]);
    expect(fedex.validate(fedex.schema('ScanEvent'), { locationType: 'MOON_BASE' })[0]).toContain('"MOON_BASE" not in');
  });

  it('rejects an array longer than maxItems', () => {
    const tooMany = Array.from({ length: 36 }, () => ({ trackingNumber: '9400111899223197428490' }));
    expect(uspsV3r2.validate(uspsV3r2.schema('TrackingRequest'), tooMany)).toEqual(['$: more than 35 items']);
  });
});
