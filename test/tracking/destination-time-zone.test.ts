import { describe, expect, it } from 'vitest';
import { destinationTimeZone } from '../../src/tracking/destination-time-zone.ts';
import { instantInZone, utcOffsetMinutesAt } from '../../src/i18n/dates.ts';

const at = (state: string | null, postalCode: string | null = null, countryCode: string | null = 'US') =>
  destinationTimeZone({ state, postalCode, countryCode });

describe('destinationTimeZone', () => {
  it.each([
    ['NY', '10001', 'America/New_York'],
    ['IL', '60601', 'America/Chicago'],
    ['CO', '80202', 'America/Denver'],
    ['CA', '94103', 'America/Los_Angeles'],
    ['AZ', '85004', 'America/Phoenix'],
    ['AK', '99501', 'America/Anchorage'],
    ['HI', '96813', 'Pacific/Honolulu'],
    ['PR', '00901', 'America/Puerto_Rico'],
  ])('%s %s → %s', (state, zip, zone) => {
    expect(at(state, zip)).toBe(zone);
  });

  it('takes the zone of the ZIP where a state spans two', () => {
    expect(at('FL', '32501')).toBe('America/Chicago'); // Pensacola
    expect(at('FL', '33101')).toBe('America/New_York'); // Miami
    expect(at('TX', '79901')).toBe('America/Denver'); // El Paso
    expect(at('TX', '75201')).toBe('America/Chicago'); // Dallas
    expect(at('TN', '37902')).toBe('America/New_York'); // Knoxville
    expect(at('TN', '37201')).toBe('America/Chicago'); // Nashville
    expect(at('IN', '46402-1234')).toBe('America/Chicago'); // Gary, ZIP+4
    expect(at('ID', '83814')).toBe('America/Los_Angeles'); // Coeur d'Alene
  });

  it('uses the state alone when the ZIP is missing, malformed or of another state', () => {
    expect(at('TX', null)).toBe('America/Chicago');
    expect(at('FL', 'ABCDE')).toBe('America/New_York');
    // 325 is Pensacola's prefix, but the state says Ohio: the pair disagrees, the state is believed.
    expect(at('OH', '32501')).toBe('America/New_York');
  });

  it('takes a territory given as the country, and a ZIP exception with no state', () => {
    expect(destinationTimeZone({ countryCode: 'PR', state: null, postalCode: '00901' })).toBe('America/Puerto_Rico');
    expect(destinationTimeZone({ countryCode: 'US', state: null, postalCode: '79901' })).toBe('America/Denver');
  });

  it('does not guess: other countries, military addresses, nothing given', () => {
    expect(at('ON', 'M5V 3L9', 'CA')).toBeNull();
    expect(at('AE', '09012')).toBeNull();
    expect(at(null, null, null)).toBeNull();
    expect(destinationTimeZone({ countryCode: 'US', state: null, postalCode: '10001' })).toBeNull();
  });

  it('reads codes regardless of case and surrounding space', () => {
    expect(at(' ny ', ' 10001 ', 'us')).toBe('America/New_York');
  });
});

describe('utcOffsetMinutesAt', () => {
  it('follows daylight saving time where the zone has it', () => {
    expect(utcOffsetMinutesAt('America/New_York', new Date('2026-01-15T12:00:00Z'))).toBe(-300);
    expect(utcOffsetMinutesAt('America/New_York', new Date('2026-07-15T12:00:00Z'))).toBe(-240);
    // 2026-11-01 06:00 UTC is 01:00 EST, an hour after the change back.
    expect(utcOffsetMinutesAt('America/New_York', new Date('2026-11-01T05:59:00Z'))).toBe(-240);
    expect(utcOffsetMinutesAt('America/New_York', new Date('2026-11-01T06:00:00Z'))).toBe(-300);
  });

  it('stays put where it has none', () => {
    expect(utcOffsetMinutesAt('America/Phoenix', new Date('2026-01-15T12:00:00Z'))).toBe(-420);
    expect(utcOffsetMinutesAt('America/Phoenix', new Date('2026-07-15T12:00:00Z'))).toBe(-420);
    expect(utcOffsetMinutesAt('Pacific/Honolulu', new Date('2026-07-15T12:00:00Z'))).toBe(-600);
    expect(utcOffsetMinutesAt('UTC', new Date('2026-07-15T12:00:00Z'))).toBe(0);
  });

  it('answers undefined for a zone name the platform does not know', () => {
    expect(utcOffsetMinutesAt('Mars/Olympus_Mons', new Date())).toBeUndefined();
  });
});

describe('instantInZone', () => {
  it('is a wall-clock hour of a day in a zone, and nothing for a day the calendar lacks', () => {
    expect(instantInZone('2027-02-14', 9, 'Pacific/Honolulu')).toEqual(new Date('2027-02-14T19:00:00Z'));
    expect(instantInZone('2027-02-14', 9, 'UTC')).toEqual(new Date('2027-02-14T09:00:00Z'));
    expect(instantInZone('2026-02-30', 9, 'UTC')).toBeNull();
    expect(instantInZone('2027-02-14', 9, 'Mars/Olympus')).toBeNull();
  });
});
