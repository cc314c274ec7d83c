import { describe, expect, it } from 'vitest';
import { IntakeLoad, nextProcessingLevel, ProcessingThrottle } from '../../src/shopify/intake/intake-priority.ts';

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
    const t = new ProcessingThrottle({
      max: 4,
      intake,
      setConcurrency: (c) => concurrencies.push(c),
      utilization: () => utilization,
      timer: false,
    });
    return {
      t,
      concurrencies,
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

  it('lets held jobs go when stopped (shutdown waits for active jobs)', async () => {
    const { t, interval } = throttle();
    for (let i = 0; i < 3; i++) interval(100, queueing, 0.95);
    const waiting = t.admission();
    t.stop();
    await expect(waiting).resolves.toBeUndefined();
  });
});
