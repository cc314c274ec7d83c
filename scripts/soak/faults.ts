import type { SoakSystem } from './system.ts';

export const FAULT_KINDS = ['redis killed', 'worker killed', 'carrier 429 period', 'carrier 5xx period'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const SANDBOXED_CARRIERS = ['ups', 'fedex', 'usps'];

/**
 * Faults on a fixed schedule, one every `everyMs` (the first after half of that), in rotation:
 * kill -9 of redis-server and a restart on the same port and append-only file; SIGKILL of a worker
 * and a new one in its place; a period in which every carrier's tracking API answers 429 (with
 * Retry-After), then one in which it answers 500 — the carrier sandbox's own fault switch
 * (`POST /sandbox/carriers/{carrier}/faults`, docs/tracking.md). Always the last worker slot is
 * killed, so the others' memory can be followed for the whole run.
 */
export async function runFaults(options: {
  system: SoakSystem;
  everyMs: number;
  redisDownMs: number;
  carrierPeriodMs: number;
  stopped: () => boolean;
  log: (line: string) => void;
}): Promise<Map<FaultKind, number>> {
  const { system, log } = options;
  const injected = new Map<FaultKind, number>(FAULT_KINDS.map((kind) => [kind, 0]));
  const victim = system.workers.length - 1;
  const started = Date.now();
  for (let i = 0; ; i++) {
    const at = started + options.everyMs * (i + 0.5);
    while (Date.now() < at) {
      if (options.stopped()) return injected;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, at - Date.now())));
    }
    if (options.stopped()) return injected;
    const kind = FAULT_KINDS[i % FAULT_KINDS.length]!;
    log(`fault at ${Math.round((Date.now() - started) / 1000)} s: ${kind}`);
    if (kind === 'redis killed') await system.killRedis(options.redisDownMs);
    else if (kind === 'worker killed') await system.killWorker(victim);
    else await carrierPeriod(system.base, kind === 'carrier 429 period' ? 'rate_limit' : 'server_error', options);
    injected.set(kind, injected.get(kind)! + 1);
  }
}

async function carrierPeriod(
  base: string,
  fault: 'rate_limit' | 'server_error',
  options: { carrierPeriodMs: number; stopped: () => boolean },
): Promise<void> {
  const control = (carrier: string, method: string, body?: unknown) =>
    fetch(`${base}/sandbox/carriers/${carrier}/faults`, {
      signal: AbortSignal.timeout(30_000),
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((response) => {
      if (response.status !== 204) throw new Error(`sandbox faults ${method}: ${response.status}`);
    });
  // "The next n calls" with an n no period reaches: the period ends when the faults are cleared.
  for (const carrier of SANDBOXED_CARRIERS) await control(carrier, 'POST', { [fault]: 10_000, retry_after_seconds: 2 });
  const until = Date.now() + options.carrierPeriodMs;
  while (Date.now() < until && !options.stopped()) await new Promise((resolve) => setTimeout(resolve, 250));
  for (const carrier of SANDBOXED_CARRIERS) await control(carrier, 'DELETE');
}
