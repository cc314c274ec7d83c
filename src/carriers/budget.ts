import { CARRIER_CODES, type CarrierCode } from './carrier-code.ts';

/** At most `max` tracking calls to one carrier per fixed window of `durationMs`, across all processes. */
export interface CarrierBudget {
  max: number;
  durationMs: number;
}

/**
 * Tracking-call budgets per carrier account. FedEx publishes 1,400 transactions / 10 s per project
 * (and 100,000 track requests a day, which 30 numbers a call keeps far away); we take a tenth so
 * other tools sharing the project keep room. UPS publishes no limit; 10/s is well inside what is
 * reported. USPS's default quota is reported as 60/h: batching 35 numbers a call (v3r2) is what
 * makes it usable at all, and validation on PUT spends the same budget.
 */
export const CARRIER_BUDGETS: Readonly<Record<CarrierCode, CarrierBudget>> = {
  ups: { max: 10, durationMs: 1_000 },
  fedex: { max: 140, durationMs: 10_000 },
  usps: { max: 60, durationMs: 3_600_000 },
};

/** The sandbox has no quota worth protecting; a person watching wants answers now. */
export const SANDBOX_BUDGET: Readonly<CarrierBudget> = { max: 50, durationMs: 1_000 };

/**
 * The budget each carrier's calls are held to: a configured one (`USPS_QUOTA=3/minute`) wins;
 * otherwise the carrier's own default, or the sandbox's for carriers served by the sandbox.
 */
export function carrierBudgets(
  configured: Readonly<Record<CarrierCode, CarrierBudget | null>>,
  sandboxed: readonly CarrierCode[],
): Record<CarrierCode, CarrierBudget> {
  return Object.fromEntries(
    CARRIER_CODES.map((carrier) => [
      carrier,
      configured[carrier] ?? (sandboxed.includes(carrier) ? SANDBOX_BUDGET : CARRIER_BUDGETS[carrier]),
    ]),
  ) as Record<CarrierCode, CarrierBudget>;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNIT_NAMES: Record<string, string> = {
  s: 's',
  sec: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
};
const BUDGET_PATTERN = /^(\d+)\s*\/\s*(\d*)\s*([a-z]+)$/i;

export class BudgetFormatError extends Error {
  override name = 'BudgetFormatError';
}

/**
 * `<calls>/<window>`: `60/hour`, `3/minute`, `140/10s`, `100000/day`. The window is whole seconds
 * (the limiter counts in Redis with a TTL in seconds) and at most a day.
 */
export function parseBudget(text: string): CarrierBudget {
  const match = BUDGET_PATTERN.exec(text.trim());
  const unit = match ? UNIT_NAMES[match[3]!.toLowerCase()] : undefined;
  if (!match || !unit)
    throw new BudgetFormatError(`must be calls per window, e.g. 60/hour, 3/minute or 140/10s (got "${text}")`);
  const max = Number(match[1]);
  const durationMs = (match[2] ? Number(match[2]) : 1) * UNIT_MS[unit]!;
  if (max < 1) throw new BudgetFormatError(`must allow at least 1 call per window (got "${text}")`);
  if (durationMs < 1_000 || durationMs > UNIT_MS.d!)
    throw new BudgetFormatError(`window must be between 1 second and 1 day (got "${text}")`);
  return { max, durationMs };
}

/** `60/3600s`: how a budget is shown in logs. */
export function describeBudget(budget: CarrierBudget): string {
  return `${budget.max}/${budget.durationMs / 1_000}s`;
}
