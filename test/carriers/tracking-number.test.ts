import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  type CarrierCode,
  carrierDisplayName,
  detectCarrier,
  identifyTrackingNumber,
  normalizeTrackingNumber,
  validateTrackingNumber,
} from '../../src/carriers/tracking-number.ts';

// Published test numbers of jkeen/tracking_number_data (provenance: test/fixtures/README.md).
interface VectorFormat {
  format: string;
  name: string;
  valid: string[];
  invalid: string[];
}
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/tracking-number-vectors.json', import.meta.url), 'utf8'),
) as { carriers: Record<string, VectorFormat[]> };

// S10 (UPU international) numbers are tracked by USPS once they reach the US, so they count as USPS.
const VECTOR_CARRIERS: Record<string, CarrierCode> = { ups: 'ups', fedex: 'fedex', usps: 'usps', s10: 'usps' };

describe('tracking-number vectors', () => {
  for (const [vectorCarrier, formats] of Object.entries(vectors.carriers)) {
    const carrier = VECTOR_CARRIERS[vectorCarrier];
    if (carrier === undefined) throw new Error(`vectors name an unknown carrier "${vectorCarrier}"`);

    for (const format of formats) {
      describe(format.name, () => {
        for (const number of format.valid) {
          it(`accepts ${JSON.stringify(number)} as ${carrierDisplayName(carrier)} (${format.name})`, () => {
            expect(validateTrackingNumber(carrier, number).valid).toBe(true);
            expect(identifyTrackingNumber(number)).toContainEqual({ carrier, format: format.name });
          });
        }
        for (const number of format.invalid) {
          it(`rejects ${JSON.stringify(number)} for ${carrierDisplayName(carrier)}`, () => {
            expect(validateTrackingNumber(carrier, number).valid).toBe(false);
          });
        }
      });
    }
  }
});

describe('normalizeTrackingNumber', () => {
  it('strips all whitespace and upper-cases', () => {
    expect(normalizeTrackingNumber(' 1z 5r8 939\t03 5756 712 7\n')).toBe('1Z5R89390357567127');
    expect(normalizeTrackingNumber('9400\u00A01112 0108 0805 4830 16')).toBe('9400111201080805483016');
  });

  it('strips dashes too (USPS receipts and spreadsheets print them)', () => {
    expect(normalizeTrackingNumber('9400-1112-0620-6406-2607-87')).toBe('9400111206206406260787');
    expect(validateTrackingNumber('usps', '9400-1112-0620-6406-2607-87').valid).toBe(true);
  });

  it('is applied before validating', () => {
    expect(validateTrackingNumber('ups', ' 1z5r8939 0357567127 ')).toEqual({ valid: true, format: 'UPS' });
  });
});

describe('IMpb numbers on UPS and FedEx orders', () => {
  it('accepts a FedEx Ground Economy (SmartPost) 92 61 29… number on a FedEx order', () => {
    expect(validateTrackingNumber('fedex', '9261292700768711948021')).toEqual({ valid: true, format: 'USPS IMpb C' });
  });

  it('accepts a SurePost / Ground Saver 92… number on a UPS order', () => {
    expect(validateTrackingNumber('ups', '92748931507708513018050063')).toEqual({ valid: true, format: 'USPS IMpb C' });
  });

  it('accepts 94… and 420+ZIP-prefixed IMpb numbers on UPS and FedEx orders', () => {
    expect(validateTrackingNumber('ups', '9400111206206406260787').valid).toBe(true);
    expect(validateTrackingNumber('fedex', '420787459400111206206406260787').valid).toBe(true);
  });

  // A probe's FedEx numbers that were flagged: Ground Economy as FedEx shows it (the IMpb without its
  // "92"), and an SSCC-18 with its (00) application identifier, as its barcode's line prints it.
  it('accepts the 20-digit forms FedEx prints: Ground Economy without "92" and SSCC-18 after (00)', () => {
    expect(validateTrackingNumber('fedex', '61299995669352455464')).toEqual({
      valid: true,
      format: 'FedEx Ground Economy (20)',
    });
    expect(validateTrackingNumber('fedex', '9261299995669352455464').valid).toBe(true);
    expect(validateTrackingNumber('fedex', '61299995669352455465').valid).toBe(false);
    expect(validateTrackingNumber('fedex', '00000123450000000027')).toEqual({
      valid: true,
      format: 'FedEx Ground (SSCC-18, AI 00)',
    });
    expect(validateTrackingNumber('fedex', '00000123450000000028').valid).toBe(false);
  });

  it('still checks the IMpb check digit', () => {
    expect(validateTrackingNumber('fedex', '9261292700768711948020')).toEqual({
      valid: false,
      reason: '"9261292700768711948020" is not a valid FedEx tracking number (check digit does not match).',
    });
  });

  it('does not accept other USPS formats on UPS or FedEx orders', () => {
    expect(validateTrackingNumber('ups', 'RB123456785US').valid).toBe(false);
    expect(validateTrackingNumber('fedex', '9101123456789000000013').valid).toBe(false);
  });

  it('does not accept UPS numbers on FedEx orders or the other way round', () => {
    expect(validateTrackingNumber('fedex', '1Z5R89390357567127').valid).toBe(false);
    expect(validateTrackingNumber('ups', '986578788855').valid).toBe(false);
  });
});

describe('detectCarrier', () => {
  it.each([
    ['detects UPS 1Z numbers', 'ups', ['1Z5R89390357567127', '1z 879e 9303 4683 4440']],
    [
      'detects FedEx Express and Ground numbers',
      'fedex',
      ['986578788855', '041441760228964', '9611020987654312345672'],
    ],
    [
      'detects USPS IMpb numbers, with or without the 420+ZIP prefix',
      'usps',
      ['9400111206206406260787', '420787459400111206206406260787'],
    ],
    [
      'gives IMpb numbers sold by UPS or FedEx to USPS, which delivers them',
      'usps',
      ['9261292700768711948021', '4201002334249200190132607600833457'],
    ],
    ['detects S10 international numbers as USPS', 'usps', ['RB123456785US']],
  ] as const)('%s', (_name, carrier, numbers) => {
    for (const number of numbers) expect(detectCarrier(number), number).toBe(carrier);
  });

  it('returns null when no format matches', () => {
    expect(detectCarrier('')).toBeNull();
    expect(detectCarrier('not a number')).toBeNull();
    expect(detectCarrier('1Z1111111111111111')).toBeNull();
  });

  it('lists every matching format in identifyTrackingNumber', () => {
    expect(identifyTrackingNumber('1Z5R89390357567127')).toEqual([{ carrier: 'ups', format: 'UPS' }]);
    expect(identifyTrackingNumber('nothing')).toEqual([]);
  });
});

describe('validation reasons', () => {
  it('says the check digit does not match when the format fits', () => {
    expect(validateTrackingNumber('ups', '1Z1111111111111111')).toEqual({
      valid: false,
      reason: '"1Z1111111111111111" is not a valid UPS tracking number (check digit does not match).',
    });
  });

  it('says the number does not look like the carrier’s when no format fits', () => {
    expect(validateTrackingNumber('fedex', 'abc-123')).toEqual({
      valid: false,
      reason: '"ABC123" does not look like a FedEx tracking number.',
    });
  });

  it('quotes the normalized number', () => {
    expect(validateTrackingNumber('usps', ' 9400 1112 0620 6406 2607 88 ')).toEqual({
      valid: false,
      reason: '"9400111206206406260788" is not a valid USPS tracking number (check digit does not match).',
    });
  });

  it('escapes quotes and shortens long input', () => {
    const result = validateTrackingNumber('usps', 'x"'.repeat(50));
    expect(result.valid).toBe(false);
    if (!result.valid)
      expect(result.reason).toBe(`${JSON.stringify('X"'.repeat(20) + '…')} does not look like a USPS tracking number.`);
  });

  it('names an empty number', () => {
    expect(validateTrackingNumber('ups', '   ')).toEqual({ valid: false, reason: 'The UPS tracking number is empty.' });
  });

  it('uses the carrier display names', () => {
    expect([carrierDisplayName('ups'), carrierDisplayName('fedex'), carrierDisplayName('usps')]).toEqual([
      'UPS',
      'FedEx',
      'USPS',
    ]);
  });
});
