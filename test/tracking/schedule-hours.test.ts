import { describe, expect, it } from 'vitest';
import {
  deliveryZone,
  intoPollingHours,
  isPollingHour,
  localDay,
  nextGridTick,
  nextLocalTimeAfter,
} from '../../src/tracking/schedule-hours.ts';

const MINUTE = 60_000;
const utc = (text: string): number => Date.parse(`${text.replace(' ', 'T')}:00Z`);

describe('delivery hours', () => {
  it('moves a time before 08:00 or after 21:45 local to the next 08:00, and keeps daytime', () => {
    const eastern = deliveryZone(-240);
    expect(intoPollingHours(utc('2026-04-14 07:00'), eastern)).toBe(utc('2026-04-14 12:00')); // 03:00 EDT
    expect(intoPollingHours(utc('2026-04-15 01:50'), eastern)).toBe(utc('2026-04-15 12:00')); // 21:50 EDT
    expect(intoPollingHours(utc('2026-04-14 16:00'), eastern)).toBe(utc('2026-04-14 16:00'));
    // Deliveries until 21:30 (issue 30's world family), and one 15-min look after the last of them.
    expect(isPollingHour(utc('2026-04-15 01:45'), eastern)).toBe(true); // 21:45 EDT, the last look
    expect(isPollingHour(utc('2026-04-15 01:46'), eastern)).toBe(false);
  });

  it('opens when Eastern opens and closes when Hawaii closes when the zone is unknown', () => {
    const unknown = deliveryZone(undefined);
    expect(isPollingHour(utc('2026-04-14 11:59'), unknown)).toBe(false);
    expect(isPollingHour(utc('2026-04-14 12:00'), unknown)).toBe(true); // 08:00 EDT
    expect(isPollingHour(utc('2026-04-15 07:45'), unknown)).toBe(true); // 21:45 HST
    expect(isPollingHour(utc('2026-04-15 07:46'), unknown)).toBe(false);
  });

  it("puts every US zone's end of an estimated day on the same day when the zone is unknown", () => {
    // carriers/clients/time.ts turns a bare date into 23:59:59 at the carrier's offset, or in UTC.
    const unknown = deliveryZone(undefined);
    const day = localDay(utc('2026-04-14 12:00'), unknown);
    for (const offset of [-240, -300, -360, -420, -480, -600, 0]) {
      const endOfDay = utc('2026-04-14 23:59') - offset * MINUTE;
      expect(localDay(endOfDay, unknown), `offset ${offset}`).toBe(day);
    }
  });
});

describe('alignment', () => {
  it('puts the next poll on the shared grid, strictly later and never more than one step away', () => {
    expect(nextGridTick(utc('2026-04-14 13:07'), 15 * MINUTE)).toBe(utc('2026-04-14 13:15'));
    expect(nextGridTick(utc('2026-04-14 13:15'), 15 * MINUTE)).toBe(utc('2026-04-14 13:30'));
  });

  it('finds the next 09:00 local, today or tomorrow', () => {
    const central = deliveryZone(-300);
    expect(nextLocalTimeAfter(utc('2026-04-14 13:00'), [540], central)).toBe(utc('2026-04-14 14:00'));
    expect(nextLocalTimeAfter(utc('2026-04-14 14:00'), [540], central)).toBe(utc('2026-04-15 14:00'));
  });
});
