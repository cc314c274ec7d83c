import { describe, expect, it } from 'vitest';
import {
  instantFromParts,
  parseCarrierTimestamp,
  parseDateParts,
  parseTimeParts,
  parseUtcOffset,
  utcOffsetOf,
} from '../../../src/carriers/clients/time.ts';

describe('carrier time parsing', () => {
  it.each([
    ['20210210', { year: 2021, month: 2, day: 10 }],
    ['2021-02-10', { year: 2021, month: 2, day: 10 }],
    ['20211310', null],
    ['', null],
    [null, null],
  ] as const)('date %s', (text, expected) => {
    expect(parseDateParts(text)).toEqual(expected);
  });

  it.each([
    ['071356', { hour: 7, minute: 13, second: 56 }],
    ['74700', { hour: 7, minute: 47, second: 0 }], // UPS gmtTime example
    ['0', { hour: 0, minute: 0, second: 0 }],
    ['11:49:17', { hour: 11, minute: 49, second: 17 }],
    ['14:00', { hour: 14, minute: 0, second: 0 }],
    ['1:45 pm', { hour: 13, minute: 45, second: 0 }],
    ['12:05 a.m.', { hour: 0, minute: 5, second: 0 }],
    ['256000', null],
    ['soon', null],
  ] as const)('time %s', (text, expected) => {
    expect(parseTimeParts(text)).toEqual(expected);
  });

  it.each([
    ['-05:00', -300],
    ['-7:00', -420], // USPS GMTOffset example
    ['+0530', 330],
    ['Z', 0],
    ['EST', null],
  ] as const)('offset %s', (text, expected) => {
    expect(parseUtcOffset(text)).toBe(expected);
  });

  it('turns wall-clock parts at an offset into the instant, UTC when the offset is unknown', () => {
    expect(instantFromParts({ year: 2025, month: 6, day: 4 }, { hour: 21, minute: 30, second: 0 }, -300)).toEqual(
      new Date('2025-06-05T02:30:00Z'),
    );
    expect(instantFromParts({ year: 2025, month: 6, day: 4 }, { hour: 21, minute: 30, second: 0 }, null)).toEqual(
      new Date('2025-06-04T21:30:00Z'),
    );
  });

  it('reads ISO timestamps with, without and instead of an offset', () => {
    expect(parseCarrierTimestamp('2021-10-15T00:00:00-06:00')).toEqual(new Date('2021-10-15T06:00:00Z'));
    expect(parseCarrierTimestamp('2024-04-04T14:03:12.041Z')).toEqual(new Date('2024-04-04T14:03:12.041Z'));
    expect(parseCarrierTimestamp('2007-09-27T00:00:00')).toEqual(new Date('2007-09-27T00:00:00Z'));
    expect(parseCarrierTimestamp('2007-09-27T00:00:00', -360)).toEqual(new Date('2007-09-27T06:00:00Z'));
    expect(parseCarrierTimestamp('2024-04-04', -420)).toEqual(new Date('2024-04-05T06:59:59Z'));
    expect(parseCarrierTimestamp('3 Business Days')).toBeNull();
    expect(utcOffsetOf('2018-02-02T12:01:00-07:00')).toBe(-420);
    expect(utcOffsetOf('2018-02-02T12:01:00')).toBeNull();
  });
});
