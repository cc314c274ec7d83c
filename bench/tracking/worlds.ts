/**
 * The worlds the schedule is judged in. The base world (journey.ts) is the one the schedule was tuned
 * on; the others change one assumption each, in a direction a real fleet may well take. The judged
 * figure of every target is the WORST world's, so a schedule cannot pass by fitting one model.
 */
import type { FleetOptions } from './journey.ts';
import type { SimulationOptions } from './simulate.ts';

export interface World {
  name: string;
  /** What differs from the base world; the base world has none. */
  fleet: Omit<FleetOptions, 'packages' | 'seed'>;
  simulation: Pick<SimulationOptions, 'errorRate'>;
}

export const WORLDS: readonly World[] = [
  { name: 'base world (journey.ts)', fleet: {}, simulation: {} },
  { name: 'no delivery windows', fleet: { withoutWindows: true }, simulation: {} },
  { name: 'destination zone unknown for half', fleet: { zoneKnownShare: 0.5 }, simulation: {} },
  { name: 'out-for-delivery scans 1.5 h earlier', fleet: { outForDeliveryShiftMinutes: -90 }, simulation: {} },
  { name: 'out-for-delivery scans 2 h later', fleet: { outForDeliveryShiftMinutes: 120 }, simulation: {} },
  { name: 'a tenth a day late without notice', fleet: { lateWithoutNotice: 0.1 }, simulation: {} },
  { name: 'a tenth a day early without notice', fleet: { earlyWithoutNotice: 0.1 }, simulation: {} },
  { name: 'carriers fail 2% of requests', fleet: {}, simulation: { errorRate: 0.02 } },
];
