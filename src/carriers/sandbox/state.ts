import { CARRIER_CODES, type CarrierCode } from '../carrier-code.ts';
import { CarrierFaults } from './faults.ts';
import { PackageStore } from './packages.ts';
import { SandboxPush } from './push.ts';
import { DEFAULT_TOKEN_TTL_SECONDS, TokenIssuer } from './tokens.ts';

export interface CarrierStats {
  trackCalls: number;
  oauthCalls: number;
  /** Push subscription requests (UPS Track Alert). */
  subscribeCalls: number;
  /** Webhook posts to the subscriber, and how many of them it did not accept. */
  pushPosts: number;
  pushFailures: number;
}

const noStats = (): CarrierStats => ({
  trackCalls: 0,
  oauthCalls: 0,
  subscribeCalls: 0,
  pushPosts: 0,
  pushFailures: 0,
});

export interface CarrierSandboxState {
  faults: CarrierFaults;
  stats: CarrierStats;
}

export interface SandboxOptions {
  now?: () => Date;
  /** `expires_in` of issued tokens; short values let tests watch a refresh. Default 3600. */
  tokenTtlSeconds?: number;
  /**
   * The fixed UTC offset of the sandbox's "local" carrier times, in minutes east (default -300,
   * US Eastern standard time). Carriers report wall-clock times with separate offsets; a non-zero
   * offset makes the clients prove they combine them correctly.
   */
  utcOffsetMinutes?: number;
}

/** Everything the fake carriers and the control API share. */
export interface SandboxState {
  readonly now: () => Date;
  readonly utcOffsetMinutes: number;
  readonly packages: PackageStore;
  readonly tokens: TokenIssuer;
  /** Push subscriptions, webhook registrations and the posts made. */
  readonly push: SandboxPush;
  readonly carriers: Readonly<Record<CarrierCode, CarrierSandboxState>>;
  /** Forget packages, tokens, faults and counters. */
  reset(): void;
}

export function createSandboxState(options: SandboxOptions = {}): SandboxState {
  const now = options.now ?? (() => new Date());
  const packages = new PackageStore();
  const tokens = new TokenIssuer(now, options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS);
  const carrierState = (): CarrierSandboxState => ({
    faults: new CarrierFaults(),
    stats: noStats(),
  });
  const carriers: Record<CarrierCode, CarrierSandboxState> = {
    ups: carrierState(),
    fedex: carrierState(),
    usps: carrierState(),
  };
  const utcOffsetMinutes = options.utcOffsetMinutes ?? -300;
  const push = new SandboxPush(
    now,
    () => utcOffsetMinutes,
    (carrier, ok) => {
      carriers[carrier].stats.pushPosts += 1;
      if (!ok) carriers[carrier].stats.pushFailures += 1;
    },
  );
  return {
    now,
    utcOffsetMinutes,
    push,
    packages,
    tokens,
    carriers,
    reset() {
      packages.clear();
      tokens.clear();
      push.clear();
      for (const carrier of CARRIER_CODES) {
        carriers[carrier].faults.clear();
        carriers[carrier].stats = noStats();
      }
    },
  };
}
