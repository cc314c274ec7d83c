import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * Webhook processing yields to webhook intake when the two share a process's thread (`npm start`,
 * the default single process). Shopify wants an answer within 5 seconds and, after failures,
 * retries and eventually removes the subscription; processing may lag by seconds. So while webhooks
 * are arriving and the event loop is busy, processing runs fewer jobs at once (down to none), and
 * when the loop has room again it takes them back, one step at a time.
 *
 * The signal is the event loop's utilisation (ELU, the share of the last interval the thread was
 * running, not waiting), measured only while receipts are being stored: processing alone may keep
 * the loop as busy as it likes. Intake at full speed keeps the loop ~80% busy by itself (it also
 * waits on PostgreSQL), so above HIGH processing is what pushes it: halve it. Below LOW there is
 * room: one more job. A burst below the intake's capacity (500/s takes about a quarter of the
 * thread) leaves processing most of its concurrency, so the backlog still drains within the burst's
 * length after it ends (docs/scaling.md "Webhook intake and processing in one process").
 */
export const INTAKE_PRIORITY = {
  /** How often the level is decided. Short: a 2-second burst must see processing step aside early. */
  everyMs: 100,
  /** Above this ELU, with webhooks arriving, processing halves its concurrency. */
  high: 0.85,
  /** Below this ELU processing takes one more job at a time, up to its configured concurrency. */
  low: 0.7,
} as const;

/** The pure decision: the next concurrency level (0 = no job starts) from the last interval. */
export function nextProcessingLevel(
  level: number,
  max: number,
  interval: { receiptsStored: number; utilization: number },
): number {
  if (interval.receiptsStored === 0) return max;
  if (interval.utilization > INTAKE_PRIORITY.high) return Math.floor(level / 2);
  if (interval.utilization < INTAKE_PRIORITY.low) return Math.min(max, level + 1);
  return level;
}

export interface ProcessingThrottleOptions {
  /** The configured concurrency (SHOPIFY_WEBHOOK_CONCURRENCY): the level without intake. */
  max: number;
  /** How many receipts this process has stored so far (a counter that only grows). */
  receiptsStored: () => number;
  /** Applies a concurrency to the worker (at least 1: level 0 is the admission gate below). */
  setConcurrency: (concurrency: number) => void;
  /** The thread's utilisation since the last call; default: node:perf_hooks' event-loop utilisation. */
  utilization?: () => number;
  /** Decide on a timer (default); false for a test that calls `tick()` itself. */
  timer?: boolean;
}

function eventLoopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization;
  };
}

/**
 * Runs `nextProcessingLevel` on a timer and applies it: the BullMQ worker's concurrency follows the
 * level, and at level 0 `admission()` holds the one job the worker still takes until the level
 * rises (a held job keeps its lock, which BullMQ renews, so it is neither stalled nor run twice).
 */
export class ProcessingThrottle {
  private level: number;
  private lastStored: number;
  private readonly utilization: () => number;
  private opened: (() => void) | null = null;
  private gate: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout | null;

  constructor(private readonly options: ProcessingThrottleOptions) {
    this.level = options.max;
    this.lastStored = options.receiptsStored();
    this.utilization = options.utilization ?? eventLoopUtilization();
    this.timer = options.timer === false ? null : setInterval(() => this.tick(), INTAKE_PRIORITY.everyMs);
    this.timer?.unref();
  }

  /** Resolves when a job may start. */
  admission(): Promise<void> {
    return this.gate ?? Promise.resolve();
  }

  /** The level now (tests, metrics). */
  get current(): number {
    return this.level;
  }

  /** Stops deciding and lets every held job go (shutdown: the worker waits for active jobs). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.apply(this.options.max);
  }

  /** One decision on the interval since the last one (the timer calls it). */
  tick(): void {
    const stored = this.options.receiptsStored();
    const receiptsStored = stored - this.lastStored;
    this.lastStored = stored;
    this.apply(nextProcessingLevel(this.level, this.options.max, { receiptsStored, utilization: this.utilization() }));
  }

  private apply(level: number): void {
    if (level === this.level) return;
    this.level = level;
    this.options.setConcurrency(Math.max(1, level));
    if (level === 0 && !this.gate) {
      this.gate = new Promise((resolve) => (this.opened = resolve));
    } else if (level > 0 && this.gate) {
      this.opened?.();
      this.gate = null;
      this.opened = null;
    }
  }
}
