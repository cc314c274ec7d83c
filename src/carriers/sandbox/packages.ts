import type { CarrierCode } from '../carrier-code.ts';
import type { TrackingStatus } from '../../vocabulary.ts';
import { normalizeTrackingNumber } from '../tracking-number.ts';

/** What a test or demo can script; `not_found` and `unknown` are what the clients conclude, not events. */
export type SandboxStatus = Exclude<TrackingStatus, 'not_found' | 'unknown'>;

export const SANDBOX_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'available_for_pickup',
  'return_to_sender',
  'failure',
] as const satisfies readonly SandboxStatus[];

export interface PackageEvent {
  status: SandboxStatus;
  at: Date;
  estimatedDeliveryAt: Date | null;
  description: string | null;
}

export interface SandboxPackage {
  carrier: CarrierCode;
  /** Normalized: upper case, no spaces. */
  trackingNumber: string;
  /** In the order they were scripted. */
  events: PackageEvent[];
}

/** A package's view as the fake carrier APIs render it. */
export interface PackageSnapshot {
  trackingNumber: string;
  latest: PackageEvent;
  /** Most recent first, as all three carriers list events. */
  history: PackageEvent[];
  /** The estimate in force: the newest event that gave one; none once delivered. */
  estimatedDeliveryAt: Date | null;
}

/** The sandbox plays the carriers, which know a number however a merchant spaced or dashed it: our one normalisation. */
export { normalizeTrackingNumber };

/** The sandbox's packages, per carrier. Unknown numbers are simply absent. */
export class PackageStore {
  readonly #packages = new Map<string, SandboxPackage>();

  append(carrier: CarrierCode, trackingNumber: string, event: PackageEvent): SandboxPackage {
    const normalized = normalizeTrackingNumber(trackingNumber);
    const key = `${carrier}:${normalized}`;
    const pkg = this.#packages.get(key) ?? { carrier, trackingNumber: normalized, events: [] };
    pkg.events.push(event);
    this.#packages.set(key, pkg);
    return pkg;
  }

  get(carrier: CarrierCode, trackingNumber: string): SandboxPackage | undefined {
    return this.#packages.get(`${carrier}:${normalizeTrackingNumber(trackingNumber)}`);
  }

  snapshot(carrier: CarrierCode, trackingNumber: string): PackageSnapshot | undefined {
    const pkg = this.get(carrier, trackingNumber);
    if (!pkg) return undefined;
    // Stable sort keeps scripting order for events with the same timestamp; the last scripted wins.
    const history = pkg.events
      .map((event, index) => ({ event, index }))
      .sort((a, b) => b.event.at.getTime() - a.event.at.getTime() || b.index - a.index)
      .map(({ event }) => event);
    const latest = history[0];
    if (!latest) return undefined;
    const estimatedDeliveryAt =
      latest.status === 'delivered'
        ? null
        : (history.find((event) => event.estimatedDeliveryAt)?.estimatedDeliveryAt ?? null);
    return { trackingNumber: pkg.trackingNumber, latest, history, estimatedDeliveryAt };
  }

  clear(): void {
    this.#packages.clear();
  }
}
