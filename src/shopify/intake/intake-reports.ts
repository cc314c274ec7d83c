import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { INTAKE_PRIORITY, IntakeIntervals, type IntakeInterval, type IntakeLoad } from './intake-priority.ts';

/**
 * Processing yields to intake across processes too (issue 31). In the production topology the intake
 * runs in web processes (`WORKERS=off`) and processing in `npm run worker` processes; on shared cores
 * (and one PostgreSQL) the workers' processing took half the intake's rate. So every web process
 * reports each interval in which webhooks arrived (their mean number in flight and its event loop's
 * utilisation) to one Redis hash, and every worker process's `ProcessingThrottle` applies to those
 * reports the rule it applies to its own intake (intake-priority.ts): processing halves while an
 * intake is queueing, takes one more job at a time while webhooks arrive unpressed, and runs at full
 * concurrency once no process reports.
 *
 * Redis, because every process of a deployment already shares it (the queues). Failing open: a
 * report that cannot be written or read leaves processing at its own process's decision, which is
 * what it did before. Reports carry the reporter's clock, so hosts must agree on the time to within
 * a fraction of `freshMs` (NTP does); a faster reporter clock only makes a report count a little longer.
 */
export const INTAKE_REPORTS = {
  /** Read only while younger than this: three intervals, so one late write does not look like silence. */
  freshMs: 3 * INTAKE_PRIORITY.everyMs,
  /** Removed by a reader past this age: the process that wrote it stopped without withdrawing it. */
  forgetMs: 60_000,
} as const;

const storedReport = z.object({
  at: z.number(),
  webhooks: z.number().nonnegative(),
  inFlight: z.number().nonnegative(),
  utilization: z.number().min(0).max(1),
});

/** The Redis hash of the intakes' reports, one field per web process. */
export class IntakeReportBoard {
  /** This process's field: a worker skips its own process's report (its throttle reads that intake directly). */
  readonly processId = randomUUID();
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${prefix}:shopify-intake-reports`;
  }

  async report(interval: IntakeInterval): Promise<void> {
    // The hash expires with the last report: no process reporting, no key left behind.
    await this.redis
      .multi()
      .hset(this.key, this.processId, JSON.stringify({ at: this.now(), ...interval }))
      .pexpire(this.key, INTAKE_REPORTS.forgetMs)
      .exec();
  }

  async withdraw(): Promise<void> {
    await this.redis.hdel(this.key, this.processId);
  }

  /** The other processes' fresh reports; removes the ones long past. */
  async othersFresh(): Promise<IntakeInterval[]> {
    const fields = await this.redis.hgetall(this.key);
    const now = this.now();
    const fresh: IntakeInterval[] = [];
    const forgotten: string[] = [];
    for (const [processId, value] of Object.entries(fields)) {
      const parsed = storedReport.safeParse(safeJson(value));
      if (!parsed.success || now - parsed.data.at > INTAKE_REPORTS.forgetMs) forgotten.push(processId);
      else if (processId !== this.processId && now - parsed.data.at <= INTAKE_REPORTS.freshMs) {
        const { webhooks, inFlight, utilization } = parsed.data;
        fresh.push({ webhooks, inFlight, utilization });
      }
    }
    if (forgotten.length > 0) await this.redis.hdel(this.key, ...forgotten);
    return fresh;
  }
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

/**
 * The web side: every interval in which webhooks arrived, this process's intake is reported. One
 * write at a time (a slow Redis skips intervals rather than piling writes up); on stop the report
 * is withdrawn, so the workers take their full concurrency back at once.
 */
export function startIntakeReporter(board: IntakeReportBoard, intake: IntakeLoad): { stop(): Promise<void> } {
  const intervals = new IntakeIntervals(intake);
  let writing: Promise<void> | null = null;
  const timer = setInterval(() => {
    const interval = intervals.next();
    if (interval.webhooks === 0 || writing) return;
    writing = board
      .report(interval)
      // Failing open (above): the workers then decide without this intake, as before reports existed.
      .catch(() => undefined)
      .finally(() => (writing = null));
  }, INTAKE_PRIORITY.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await writing;
      await board.withdraw().catch(() => undefined);
    },
  };
}

/**
 * The worker side: the other processes' fresh reports for the throttle's synchronous tick. Each call
 * returns what the last read found and begins the next read, so the reads follow the throttle's own
 * timer (one interval behind) and stop with it. A read that fails counts as no report (failing open).
 */
export class OtherIntakes {
  private latest: IntakeInterval[] = [];
  private reading: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly board: IntakeReportBoard) {}

  intervals(): readonly IntakeInterval[] {
    if (this.stopped) return [];
    void this.refresh();
    return this.latest;
  }

  /** One read now, unless one is under way (tests call it to wait for a read). */
  refresh(): Promise<void> {
    this.reading ??= this.board
      .othersFresh()
      .then(
        (reports) => void (this.latest = reports),
        () => void (this.latest = []),
      )
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /** No more reads; waits for the one under way (its Redis connection closes after this). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.reading;
  }
}
