import { describe, expect, it } from 'vitest';
import { eachWithConcurrency } from '../../src/notifications/each-with-concurrency.ts';

/** A task that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('eachWithConcurrency', () => {
  it('runs at most `concurrency` at once, starting them in order', async () => {
    const gates = Array.from({ length: 7 }, gate);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const done = eachWithConcurrency([0, 1, 2, 3, 4, 5, 6], 3, async (i) => {
      started.push(i);
      most = Math.max(most, ++running);
      await gates[i]!.opened;
      running--;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    gates[1]!.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates) g.open();
    await done;
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(most).toBe(3);
  });

  it('starts nothing new after a failure, lets the running ones finish, then throws the first error', async () => {
    const slow = gate();
    const finished: number[] = [];
    const started: number[] = [];
    const done = eachWithConcurrency([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      if (i === 0) {
        await slow.opened;
        finished.push(i);
        return;
      }
      throw new Error(`item ${i} failed`);
    });
    let settled = false;
    void done.catch(() => {}).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect(settled).toBe(false);
    slow.open();
    await expect(done).rejects.toThrow('item 1 failed');
    expect(finished).toEqual([0]);
    expect(started).toEqual([0, 1]);
  });

  it('does nothing for no items', async () => {
    await eachWithConcurrency([], 5, () => Promise.reject(new Error('never called')));
  });
});
