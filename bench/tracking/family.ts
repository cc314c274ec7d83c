/**
 * A family of worlds drawn from wide priors (issue 30): the schedule is judged where it was not tuned.
 * Each world is a FleetOptions of journey.ts plus a carrier error rate, drawn from a seeded PRNG, so the
 * same seed gives the same family. The priors are the issue's:
 *
 * - out-for-delivery scan share 70–100%, per carrier;
 * - deliveries as late as 21:00–21:30 local, delivery hours per carrier moved −1.5 h … +2 h, scans too;
 * - early without notice 0–5% (1–3 delivery days early), late without notice 0–15%;
 * - heavy-tailed first-scan delays and transit times (a share of 0–20% with Pareto extra days);
 * - Alaska and Hawaii 0.5–5% of destinations each;
 * - destination zone unknown for 0–80%;
 * - carrier request failures 0–3%;
 * - per-carrier mix and window shares (0–100% of the base model's).
 */
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { WORLD } from './journey.ts';
import { seededRandom, type Random } from './prng.ts';
import type { World } from './worlds.ts';

export interface FamilyWorld extends World {
  /** The world's own maximum silent-early days: the floor needs it (floor.ts `earlyDays`). */
  earlyDays: number;
  /** The drawn priors in one line, for the report. */
  summary: string;
}

const per = (rng: Random, min: number, max: number): Record<CarrierCode, number> => ({
  ups: rng.between(min, max),
  fedex: rng.between(min, max),
  usps: rng.between(min, max),
});

export function drawFamily(count: number, seed: number): FamilyWorld[] {
  const rng = seededRandom((Math.imul(seed, 0x27d4eb2d) ^ 0xfa111e5) >>> 0);
  const worlds: FamilyWorld[] = [];
  for (let i = 0; i < count; i++) {
    const ofd = per(rng, 0.7, 1);
    const windowScale = per(rng, 0, 1.1);
    const windowShare = {
      ups: Math.min(1, WORLD.window.ups * windowScale.ups),
      fedex: Math.min(1, WORLD.window.fedex * windowScale.fedex),
      usps: Math.min(1, WORLD.window.usps * windowScale.usps),
    };
    const deliveryMinuteShift = per(rng, -90, 120);
    const outForDeliveryShiftMinutes = rng.between(-90, 120);
    const latestDeliveryMinute = rng.between(21 * 60, 21.5 * 60);
    const earlyWithoutNotice = rng.between(0, 0.05);
    const earlyDays = 1 + Math.floor(rng.next() * 3);
    const lateWithoutNotice = rng.between(0, 0.15);
    const labelToScanTail = rng.between(0, 0.2);
    const transitTail = rng.between(0, 0.2);
    const alaska = rng.between(0.005, 0.05);
    const hawaii = rng.between(0.005, 0.05);
    const zoneKnownShare = rng.between(0.2, 1);
    const errorRate = rng.between(0, 0.03);
    const mix = per(rng, 0.1, 1);
    const mainland = WORLD.offsets.filter(([o]) => o > -480);
    const mainlandWeight = mainland.reduce((s, [, w]) => s + w, 0);
    const offsets: Array<readonly [number, number]> = [
      ...mainland.map(([o, w]) => [o, (w / mainlandWeight) * (1 - alaska - hawaii)] as const),
      [-480, alaska],
      [-600, hawaii],
    ];
    const p = (x: number): string => `${Math.round(x * 100)}%`;
    worlds.push({
      name: `family #${i + 1}`,
      fleet: {
        zoneKnownShare,
        outForDeliveryShiftMinutes,
        lateWithoutNotice,
        earlyWithoutNotice,
        earlyWithoutNoticeMaxDays: earlyDays,
        outForDeliveryScanShare: ofd,
        windowShare,
        deliveryMinuteShift,
        latestDeliveryMinute,
        labelToScanTail,
        transitTail,
        offsets,
        carrierMix: [
          ['ups', mix.ups],
          ['fedex', mix.fedex],
          ['usps', mix.usps],
        ],
      },
      simulation: { errorRate },
      earlyDays,
      summary:
        `OFD scan UPS ${p(ofd.ups)}/FedEx ${p(ofd.fedex)}/USPS ${p(ofd.usps)}, windows ${p(windowShare.ups)}/${p(windowShare.fedex)}/${p(windowShare.usps)}, ` +
        `early silent ${p(earlyWithoutNotice)} (≤ ${earlyDays} d), late silent ${p(lateWithoutNotice)}, zone unknown ${p(1 - zoneKnownShare)}, ` +
        `errors ${(errorRate * 100).toFixed(1)}%, AK ${p(alaska)} HI ${p(hawaii)}, scan tail ${p(labelToScanTail)}, transit tail ${p(transitTail)}, ` +
        `delivery shift ${Math.round(deliveryMinuteShift.ups)}/${Math.round(deliveryMinuteShift.fedex)}/${Math.round(deliveryMinuteShift.usps)} min, OFD shift ${Math.round(outForDeliveryShiftMinutes)} min, latest ${Math.floor(latestDeliveryMinute / 60)}:${String(Math.round(latestDeliveryMinute % 60)).padStart(2, '0')}`,
    });
  }
  return worlds;
}
