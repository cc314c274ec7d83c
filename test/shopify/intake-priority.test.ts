import { describe, expect, it } from 'vitest';
import {
  IntakeLoad,
  levelAcross,
  nextProcessingLevel,
  ProcessingThrottle,
  type IntakeInterval,
} from '../../src/shopify/intake/intake-priority.ts';

describe('webhook processing yields to intake (nextProcessingLevel)', () => {
  const pressed = { webhooks: 200, inFlight: 9 };

  it('runs at full concurrency while no webhook arrives, however busy the thread', () => {
    expect(nextProcessingLevel(0, 8, { webhooks: 0, inFlight: 0, utilization: 1 })).toBe(8);
    expect(nextProcessingLevel(3, 8, { webhooks: 0, inFlight: 0, utilization: 0.99 })).toBe(8);
  });

  it('halves while webhooks queue in the handler and the thread is past busy, down to none', () => {
    const busy = { ...pressed, utilization: 0.97 };
    const levels = [8];
    while (levels.at(-1)! > 0) levels.push(nextProcessingLevel(levels.at(-1)!, 8, busy));
    // Four decisions (0.4 s): a short burst sees processing step aside early.
    expect(levels).toEqual([8, 4, 2, 1, 0]);
  });

  it('keeps going while webhooks are answered quickly, however busy the thread (a fixed-rate burst)', () => {
    expect(nextProcessingLevel(8, 8, { webhooks: 50, inFlight: 1.5, utilization: 0.98 })).toBe(8);
    expect(nextProcessingLevel(2, 8, { webhooks: 50, inFlight: 1.5, utilization: 0.98 })).toBe(3);
  });

  it('takes one more job at a time when the thread has room again, up to the configured concurrency', () => {
    const room = { ...pressed, utilization: 0.3 };
    expect(nextProcessingLevel(0, 8, room)).toBe(1);
    expect(nextProcessingLevel(7, 8, room)).toBe(8);
    expect(nextProcessingLevel(8, 8, room)).toBe(8);
  });

  it('holds its level between the two thresholds', () => {
    expect(nextProcessingLevel(5, 8, { ...pressed, utilization: 0.8 })).toBe(5);
  });
});

describe('yielding to several intakes (levelAcross)', () => {
  const idle = { webhooks: 0, inFlight: 0, utilization: 0.1 };
  const queueing = { webhooks: 300, inFlight: 9, utilization: 0.97 };
  const unpressed = { webhooks: 40, inFlight: 1, utilization: 0.5 };

  it('follows the most pressed intake: a web process queueing halves a worker whose own intake is idle', () => {
    expect(levelAcross(8, 8, [idle, queueing])).toBe(4);
    expect(levelAcross(8, 8, [idle, unpressed, queueing])).toBe(4);
  });

  it('takes one more job at a time while webhooks arrive unpressed elsewhere, and all of them once none arrive', () => {
    expect(levelAcross(2, 8, [idle, unpressed])).toBe(3);
    expect(levelAcross(2, 8, [idle])).toBe(8);
    expect(levelAcross(2, 8, [])).toBe(8);
  });
});

describe('IntakeLoad', () => {
  it('counts webhooks and the time they spent in the handler, also when the handler throws', async () => {
    const load = new IntakeLoad();
    await load.track(() => new Promise((resolve) => setTimeout(resolve, 20)));
    await expect(load.track(() => Promise.reject(new Error('bad')))).rejects.toThrow('bad');
    expect(load.webhooks).toBe(2);
    expect(load.busyMs).toBeGreaterThanOrEqual(19);
  });
});

describe('ProcessingThrottle', () => {
  function throttle() {
    const intake = new IntakeLoad();
    let utilization = 0;
    const concurrencies: number[] = [];
    const levels: number[] = [];
    const elsewhere: IntakeInterval[] = [];
    const t = new ProcessingThrottle({
      max: 4,
      intake,
      elsewhere: { intervals: () => elsewhere },
      setConcurrency: (c) => concurrencies.push(c),
      observeLevel: (level) => levels.push(level),
      utilization: () => utilization,
      timer: false,
    });
    return {
      t,
      concurrencies,
      levels,
      elsewhere,
      /** One interval: `webhooks` answered, each in the handler for `eachMs`, at this utilisation. */
      interval(webhooks: number, eachMs: number, elu: number) {
        intake.webhooks += webhooks;
        intake.busyMs += webhooks * eachMs;
        utilization = elu;
        t.tick();
      },
    };
  }
  // The test's intervals last well under a second: 100 webhooks of 1,000 ms each are many in flight.
  const queueing = 1_000;

  it('sets the worker concurrency to the level, never below 1', () => {
    const { t, concurrencies, interval } = throttle();
    interval(100, queueing, 0.95);
    interval(100, queueing, 0.95);
    interval(100, queueing, 0.95);
    expect(t.current).toBe(0);
    expect(concurrencies).toEqual([2, 1, 1]);
  });

  it('holds a job at admission while the level is 0, and lets it go when it rises', async () => {
    const { t, interval } = throttle();
    for (let i = 0; i < 3; i++) interval(100, queueing, 0.95);
    let admitted = false;
    const waiting = t.admission().then(() => (admitted = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(admitted).toBe(false);
    // The burst is over: no webhooks in the interval → full concurrency at once.
    interval(0, 0, 0.2);
    await waiting;
    expect(admitted).toBe(true);
    expect(t.current).toBe(4);
  });

  it("yields to another process's intake as reported, with nothing arriving here, and tells every level", () => {
    const { t, levels, elsewhere, interval } = throttle();
    elsewhere.push({ webhooks: 300, inFlight: 9, utilization: 0.97 });
    for (let i = 0; i < 3; i++) interval(0, 0, 0.1);
    expect(t.current).toBe(0);
    // The report is gone (that intake went quiet): full concurrency at once.
    elsewhere.length = 0;
    interval(0, 0, 0.1);
    expect(levels).toEqual([4, 2, 1, 0, 4]);
  });

  it('says it is yielding from its first step down until it is back at full concurrency (the sends dispatcher holds other messages meanwhile)', () => {
    const { t, interval } = throttle();
    expect(t.yielding).toBe(false);
    interval(100, queueing, 0.95);
    expect(t.current).toBe(2);
    expect(t.yielding).toBe(true);
    // Not pressed any more, webhooks still arriving: one step back at a time.
    interval(100, 1, 0.5);
    interval(100, 1, 0.5);
    expect(t.current).toBe(4);
    expect(t.yielding).toBe(false);
  });

  it('lets held jobs go when stopped (shutdown waits for active jobs)', async () => {
    const { t, interval } = throttle();
    for (let i = 0; i < 3; i++) interval(100, queueing, 0.95);
    const waiting = t.admission();
    t.stop();
    await expect(waiting).resolves.toBeUndefined();
  });
});
