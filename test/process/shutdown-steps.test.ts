import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { exitGracefullyOnSignals, type ShutdownStep } from '../../src/process/shutdown.ts';

/** The order, error handling and deadline of src/process/shutdown.ts, with the signals and exit injected. */
function harness(steps: ShutdownStep[], timeoutMs = 5_000) {
  const signals = new EventEmitter();
  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) => {
    exitGracefullyOnSignals({
      logger: createLogger('silent'),
      timeoutMs,
      steps,
      signals,
      exit: (code) => {
        exitCode ??= code;
        resolve(code);
      },
    });
  });
  return { signals, exited, exitCode: () => exitCode };
}

it('runs the steps one after the other, in order, then exits 0', async () => {
  const ran: string[] = [];
  const step = (name: string): ShutdownStep => ({
    name,
    run: async () => {
      ran.push(`${name} start`);
      await new Promise((resolve) => setImmediate(resolve));
      ran.push(`${name} end`);
    },
  });
  const { signals, exited } = harness([step('http'), step('workers'), step('queues')]);
  signals.emit('SIGTERM');
  expect(await exited).toBe(0);
  expect(ran).toEqual(['http start', 'http end', 'workers start', 'workers end', 'queues start', 'queues end']);
});

it('goes on after a failing step and exits 1', async () => {
  const ran: string[] = [];
  const { signals, exited } = harness([
    { name: 'workers', run: async () => Promise.reject(new Error('connection is closed')) },
    { name: 'database', run: async () => void ran.push('database') },
  ]);
  signals.emit('SIGINT');
  expect(await exited).toBe(1);
  expect(ran).toEqual(['database']);
});

it('exits 1 at the deadline when a step never finishes', async () => {
  const { signals, exited } = harness([{ name: 'workers', run: () => new Promise<void>(() => {}) }], 50);
  const started = Date.now();
  signals.emit('SIGTERM');
  expect(await exited).toBe(1);
  expect(Date.now() - started).toBeGreaterThanOrEqual(45);
});

it('a second signal does not start a second shutdown or cut the first one short', async () => {
  let runs = 0;
  let finish!: () => void;
  const { signals, exited, exitCode } = harness([
    { name: 'workers', run: () => new Promise<void>((resolve) => ((runs += 1), (finish = resolve))) },
  ]);
  signals.emit('SIGTERM');
  signals.emit('SIGTERM'); // npm forwarding the group's signal to its child
  signals.emit('SIGINT');
  expect(runs).toBe(1);
  expect(exitCode()).toBeUndefined();
  finish();
  expect(await exited).toBe(0);
});
