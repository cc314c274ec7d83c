/**
 * The bench's targets (issue 11) and how a measured figure is judged against one. Pure: run.ts
 * measures, this decides PASS or MISS, report.ts writes it down.
 */
import type { MedianInterval } from './stats.ts';
import { PUSHED_CARRIERS, type PushedCarrier } from './tracking/push.ts';

/** One number the bench measured, under a stable id (`service.get`, `floor.put`, …). */
export interface Figure {
  id: string;
  label: string;
  /** Null when the step that measures it did not run or failed; `note` says why. */
  value: number | null;
  unit: string;
  /** What qualifies the number (e.g. "median of 3", "p50 14 ms"). */
  note?: string;
  /** Something that makes the number untrustworthy (errors, non-2xx answers): the figure cannot pass. */
  problem?: string;
  /**
   * A confidence interval on `value` (a median of paired ratios): the target is then judged on the
   * interval, not the point — PASS when all of it meets the target, MISS when none of it does,
   * NOT DECIDED when it straddles the line or is less sure than the target wants.
   */
  interval?: MedianInterval;
  /** A second, machine-independent measure that explains the verdict (e.g. buffers per request), shown with it. */
  evidence?: string;
  /**
   * What the report prints beside the figure wherever it is judged (e.g. CPU per request beside a
   * throughput): on a shared machine the steadier measure of the same work.
   */
  beside?: string;
}

export interface Target {
  /** What the row says in the report. */
  label: string;
  figure: string;
  /** Another figure of the same run this one is divided by; absent → `value` itself is compared. */
  relativeTo?: string;
  atLeast?: number;
  atMost?: number;
  /** The usual cause of a miss, written next to it so the reader knows where to look. */
  whenMissed: string;
  /** For a figure with an interval: the confidence it must reach before a verdict is given (default 0.9). */
  confidence?: number;
}

export type Verdict = 'PASS' | 'MISS' | 'NOT DECIDED' | 'NOT MEASURED';

export interface Evaluation {
  target: Target;
  value: number | null;
  unit: string;
  /** value ÷ the reference figure, for relative targets (or the figure itself when it is a ratio with an interval). */
  ratio: number | null;
  /** The figure's confidence interval, when it was judged on one. */
  interval?: MedianInterval;
  verdict: Verdict;
  /** Why it missed or was not measured; empty on a pass. */
  reason: string;
  /** The figure's `beside` (CPU per request), shown with the measurement. */
  beside?: string;
}

/** The service's throughput scenarios that must hold at 1M rows, with the label of each. */
export const HTTP_SCENARIOS = {
  'service.get': 'GET /v1/orders/{id}',
  'service.put-price': 'PUT price',
  'service.put-carrier': 'PUT carrier + number',
  'service.webhook-intake': 'orders/create webhooks accepted',
} as const;
export type HttpScenario = keyof typeof HTTP_SCENARIOS;

/** A figure measured again on the seeded database (large tables). */
export const seededId = (id: string): string => `seeded.${id}`;
/** The same figure on the empty database, in the runs alternating with the seeded one's: what the large-table figure is judged against. */
export const pairedEmptyId = (id: string): string => `paired-empty.${id}`;
/** The median of the pairs' large ÷ empty ratios, with its confidence interval: what the 10% target judges. */
export const constancyId = (id: string): string => `constancy.${id}`;
/** PostgreSQL buffers touched per request (pg_stat_statements) on the empty or the seeded database. */
export const buffersId = (id: string, tables: 'empty' | 'large'): string => `buffers-${tables}.${id}`;

export const TARGETS: readonly Target[] = [
  {
    label: 'GET ≥ 0.8× the GET floor with auth',
    figure: 'service.get',
    relativeTo: 'floor.get-auth',
    atLeast: 0.8,
    whenMissed: 'per-request work beyond one key check and one indexed read (middleware, routing, serialization)',
  },
  {
    label: 'GET ≥ 0.6× the GET floor without auth',
    figure: 'service.get',
    relativeTo: 'floor.get',
    atLeast: 0.6,
    whenMissed:
      'the service’s own per-request work (request context, metrics, rate limit, serialization) on top of the read',
  },
  {
    label: 'PUT price ≥ 0.9× the PUT floor',
    figure: 'service.put-price',
    relativeTo: 'floor.put',
    atLeast: 0.9,
    whenMissed:
      'a round trip fewer than the floor (the lock, then the update with its timeline row: test/orders/round-trips.test.ts); the rest is the service’s own per-request work (authentication, validation, the change plan, serialization) on a machine whose two cores also run PostgreSQL and the load generator',
  },
  {
    label: 'Webhook intake ≥ 0.8× the webhook floor',
    figure: 'service.webhook-intake',
    relativeTo: 'floor.webhook',
    atLeast: 0.8,
    whenMissed:
      'the same process and PostgreSQL also process what it accepts (about six times the intake’s CPU per webhook; processing yields only while answers queue and the loop is busy), and the intake alone costs about twice the floor’s CPU per webhook (Koa middleware, Kysely, the queue hand-off): docs/scaling.md “Webhook intake”',
  },
  {
    label: 'Topology: webhook intake while separate workers drain a backlog ≥ 0.8× its floor (web processes alone)',
    figure: 'topology.intake-draining',
    relativeTo: 'topology.intake-floor',
    atLeast: 0.8,
    whenMissed:
      'the web and worker processes share the same cores and PostgreSQL: the workers’ CPU (and PostgreSQL’s for each processed webhook) is taken from the intake; compare the web CPU per webhook at the floor and while draining — equal means the intake lost cores, not efficiency',
  },
  {
    label: 'Topology: ≥ 300 webhooks/s processed, sustained, by separate worker processes',
    figure: 'topology.processed',
    atLeast: 300,
    whenMissed:
      'the workers and PostgreSQL together need more CPU per processed webhook than the machine’s cores give at this rate (see the CPU per webhook beside it), or processing waits on commits (fsync) and more concurrency or worker processes would help',
  },
  {
    label: 'Webhook burst drains within its own length after it ends (60 s after 60 s at 500/s)',
    figure: 'burst.drain',
    relativeTo: 'burst.length',
    atMost: 1,
    whenMissed: 'webhook processing does not keep pace with intake (one process, default concurrency)',
  },
  {
    label: 'Delivered→sent p95 < 200 ms',
    figure: 'delivered-sent.p95',
    atMost: 200,
    whenMissed: 'the send waits for the send tick instead of being enqueued when the delivery commits',
  },
  ...PUSHED_CARRIERS.flatMap((carrier): Target[] => [
    {
      label: `Pushed ${carrier.toUpperCase()} packages: ≤ 3 carrier calls per delivered package`,
      figure: pushId(carrier, 'calls-per-package'),
      atMost: 3,
      whenMissed:
        'polls while a push subscription is live (the push schedule), or a validation and a first poll both calling',
    },
    {
      label: `Pushed ${carrier.toUpperCase()} packages: p95 detection lag ≤ 60 s`,
      figure: pushId(carrier, 'lag-p95'),
      atMost: 60_000,
      whenMissed: 'the pushed event is stored but not applied at once (the claim tick picks it up instead)',
    },
  ]),
  ...Object.entries(HTTP_SCENARIOS).map(([id, label]): Target => ({
    label: `${label} with large tables within 10% of empty`,
    figure: constancyId(id),
    atLeast: 0.9,
    confidence: 0.9,
    whenMissed: 'a hot query that no index serves reads the whole table (look for a Seq Scan in EXPLAIN)',
  })),
];

export function evaluate(target: Target, figures: ReadonlyMap<string, Figure>): Evaluation {
  const figure = figures.get(target.figure);
  const reference = target.relativeTo === undefined ? undefined : figures.get(target.relativeTo);
  const base = {
    target,
    value: figure?.value ?? null,
    unit: figure?.unit ?? '',
    ratio: null,
    ...(figure?.beside ? { beside: figure.beside } : {}),
  };
  if (!figure || figure.value === null)
    return { ...base, verdict: 'NOT MEASURED', reason: figure?.note ?? 'not measured in this run' };
  if (target.relativeTo !== undefined && (!reference || reference.value === null || reference.value === 0))
    return {
      ...base,
      verdict: 'NOT MEASURED',
      reason: `its reference (${reference?.label ?? target.relativeTo}) was not measured`,
    };
  if (figure.interval) return judgeInterval(target, figure, figure.interval);
  const compared = reference ? figure.value / reference.value! : figure.value;
  const ratio = reference ? compared : null;
  const problems = [figure.problem, reference?.problem].filter((p): p is string => Boolean(p));
  const shown = (n: number) => (reference ? `${formatNumber(n)}×` : `${formatNumber(n)} ${figure.unit}`);
  const missed =
    target.atLeast !== undefined && compared < target.atLeast
      ? `${shown(compared)} is below ${shown(target.atLeast)}: ${target.whenMissed}`
      : target.atMost !== undefined && compared > target.atMost
        ? `${shown(compared)} is above ${shown(target.atMost)}: ${target.whenMissed}`
        : '';
  // A figure measured with errors cannot pass, however good it looks; a miss says both why and what was wrong.
  if (missed || problems.length > 0)
    return { ...base, ratio, verdict: 'MISS', reason: [missed, ...problems].filter(Boolean).join('; ') };
  return { ...base, ratio, verdict: 'PASS', reason: '' };
}

/**
 * A figure known only within an interval: decided only when the whole interval is on one side of
 * the target, at the confidence the target asks for. The figure's evidence goes with every verdict
 * but a pass, so a miss or an open question comes with what explains it.
 */
function judgeInterval(target: Target, figure: Figure, interval: MedianInterval): Evaluation {
  const wanted = target.confidence ?? 0.9;
  const base = { target, value: figure.value, unit: figure.unit, ratio: figure.value, interval };
  const shown = `${formatPercent(interval.confidence)} interval ${formatNumber(interval.low)}–${formatNumber(interval.high)}×`;
  const tail = [figure.problem, figure.evidence].filter((p): p is string => Boolean(p));
  const reasons = (first: string) => [first, ...tail].join('; ');
  const bound = target.atLeast ?? target.atMost!;
  const above = target.atLeast !== undefined;
  if (interval.confidence < wanted)
    return {
      ...base,
      verdict: 'NOT DECIDED',
      reason: reasons(
        `${shown}: too few pairs to reach ${formatPercent(wanted)} confidence (the full run's pairs can)`,
      ),
    };
  const meets = above ? interval.low >= bound : interval.high <= bound;
  const fails = above ? interval.high < bound : interval.low > bound;
  if (fails)
    return {
      ...base,
      verdict: 'MISS',
      reason: reasons(`${shown}, all of it ${above ? 'below' : 'above'} ${formatNumber(bound)}×: ${target.whenMissed}`),
    };
  if (meets && !figure.problem) return { ...base, verdict: 'PASS', reason: '' };
  if (meets) return { ...base, verdict: 'MISS', reason: reasons(shown) };
  return {
    ...base,
    verdict: 'NOT DECIDED',
    reason: reasons(
      `${shown} straddles ${formatNumber(bound)}×: the pairs disagree more than the 10% judged (more pairs, or a quieter machine)`,
    ),
  };
}

function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}

/** Three significant digits for small numbers, thousands separators for large ones. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}

/** A pushed carrier's figure: `push.ups.calls-per-package`, `push.usps.lag-p95`. */
export function pushId(carrier: PushedCarrier, figure: 'calls-per-package' | 'lag-p95'): string {
  return `push.${carrier}.${figure}`;
}
