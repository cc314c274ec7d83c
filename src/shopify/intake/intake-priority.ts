import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * Webhook processing yields to webhook intake when the two share a process's thread (`npm start`,
 * the default single process). Shopify wants an answer within 5 seconds and, after failures,
 * retries and eventually removes the subscription; processing may lag by seconds. So while webhooks
 * are arriving and the event loop is busy, processing runs fewer jobs at once (down to none), and
 * when the loop has room again it takes them back, one step at a time.
 *
 * Two signals, both over the last interval: the event loop's utilisation (ELU, the share of the time
 * the thread was running, not waiting) and the intake's mean webhooks in flight (`IntakeLoad`).
 * Processing alone may keep the loop as busy as it likes; what calls for yielding is webhooks
 * queueing up in the handler while the loop is past busy — the intake is then waiting for the
 * thread. Then processing halves its concurrency; when the loop has room, or webhooks no longer
 * queue, it takes one more job. A fixed-rate burst that the intake answers quickly (500/s in a few
 * milliseconds each) keeps few in flight, so processing keeps its concurrency and the backlog still
 * drains within the burst's length after it ends; if answers slow down, processing steps aside
 * until they are quick again (docs/scaling.md "Webhook intake"). Worker processes yield the same way
 * to the web processes' intakes, which report to Redis (intake-reports.ts). While the throttle is
 * `yielding`, the send dispatcher holds back the messages that can wait (jobs/dispatch-sends.ts).
 */
export const INTAKE_PRIORITY = {
  /** How often the level is decided. Short: a 2-second burst must see processing step aside early. */
  everyMs: 100,
  /** Above this ELU, with webhooks arriving, processing halves its concurrency. */
  high: 0.85,
  /** Below this ELU processing takes one more job at a time, up to its configured concurrency. */
  low: 0.7,
  /**
   * Webhooks in the handler at once, on average over the interval, from which the intake counts as
   * pressed. Ten connections sending as fast as they are answered keep it near ten; a burst of
   * 500/s answered in 4 ms keeps it at 2, so processing yields there only once answers take longer
   * than about 8 ms (and then until they are faster again).
   */
  inFlight: 4,
} as const;

/** One interval of an intake: webhooks answered, their mean number in flight, the event loop's utilisation. */
export interface IntakeInterval {
  webhooks: number;
  inFlight: number;
  utilization: number;
}

/** The pure decision: the next concurrency level (0 = no job starts) from the last interval. */
export function nextProcessingLevel(level: number, max: number, interval: IntakeInterval): number {
  if (interval.webhooks === 0) return max;
  const pressed = interval.inFlight >= INTAKE_PRIORITY.inFlight;
  if (pressed && interval.utilization > INTAKE_PRIORITY.high) return Math.floor(level / 2);
  if (!pressed || interval.utilization < INTAKE_PRIORITY.low) return Math.min(max, level + 1);
  return level;
}

/**
 * The decision over every intake processing shares its cores with (this process's, and the web
 * processes' reports: intake-reports.ts): the lowest level any of them calls for, so the most
 * pressed intake is the one that is yielded to. An intake with no webhooks calls for full concurrency.
 */
export function levelAcross(level: number, max: number, intervals: readonly IntakeInterval[]): number {
  return Math.min(max, ...intervals.map((interval) => nextProcessingLevel(level, max, interval)));
}

/**
 * What the intake tells the throttle: webhook requests answered, and the time they spent in the
 * handler. Their sum over an interval divided by its length is the mean number of webhooks in
 * flight (Little's law): arrival rate × answer time, so it grows when answers slow down.
 */
export class IntakeLoad {
  webhooks = 0;
  busyMs = 0;

  async track<T>(handle: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await handle();
    } finally {
      this.webhooks += 1;
      this.busyMs += performance.now() - started;
    }
  }
}

/**
 * Turns an intake's running totals into successive intervals: what arrived since the last call, the
 * mean number in flight over it (Little's law), and the thread's utilisation over it.
 */
export class IntakeIntervals {
  private lastWebhooks: number;
  private lastBusyMs: number;
  private lastAt = performance.now();

  constructor(
    private readonly intake: IntakeLoad | null,
    private readonly utilization: () => number = eventLoopUtilization(),
  ) {
    this.lastWebhooks = intake?.webhooks ?? 0;
    this.lastBusyMs = intake?.busyMs ?? 0;
  }

  next(): IntakeInterval {
    const now = performance.now();
    const webhooks = (this.intake?.webhooks ?? 0) - this.lastWebhooks;
    const inFlight = ((this.intake?.busyMs ?? 0) - this.lastBusyMs) / Math.max(1, now - this.lastAt);
    this.lastWebhooks = this.intake?.webhooks ?? 0;
    this.lastBusyMs = this.intake?.busyMs ?? 0;
    this.lastAt = now;
    return { webhooks, inFlight, utilization: this.utilization() };
  }
}

export interface ProcessingThrottleOptions {
  /** The configured concurrency (SHOPIFY_WEBHOOK_CONCURRENCY): the level without intake. */
  max: number;
  /** The intake of this process (absent in a worker-only process). */
  intake: IntakeLoad | null;
  /** The other processes' intakes, as they last reported (intake-reports.ts); absent: this process's only. */
  elsewhere?: { intervals(): readonly IntakeInterval[] };
  /** Applies a concurrency to the worker (at least 1: level 0 is the admission gate below). */
  setConcurrency: (concurrency: number) => void;
  /** Told every level, the first included (the operators' gauge). */
  observeLevel?: (level: number) => void;
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
  private readonly intervals: IntakeIntervals;
  private opened: (() => void) | null = null;
  private gate: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout | null;

  constructor(private readonly options: ProcessingThrottleOptions) {
    this.level = options.max;
    this.intervals = new IntakeIntervals(options.intake, options.utilization);
    options.observeLevel?.(this.level);
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

  /** Processing runs below its configured concurrency: an intake is pressed, or was a moment ago. */
  get yielding(): boolean {
    return this.level < this.options.max;
  }

  /** Stops deciding and lets every held job go (shutdown: the worker waits for active jobs). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.apply(this.options.max);
  }

  /** One decision on the interval since the last one (the timer calls it). */
  tick(): void {
    const intervals = [this.intervals.next(), ...(this.options.elsewhere?.intervals() ?? [])];
    this.apply(levelAcross(this.level, this.options.max, intervals));
  }

  private apply(level: number): void {
    if (level === this.level) return;
    this.level = level;
    this.options.observeLevel?.(level);
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
