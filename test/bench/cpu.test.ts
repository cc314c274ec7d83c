import { describe, expect, it } from 'vitest';
import { cpuMsPer, parseProcStat, processTicks } from '../../bench/support/cpu.ts';
import { evaluate, TARGETS, type Figure } from '../../bench/targets.ts';

describe('CPU per request (bench topology step)', () => {
  it('reads utime, stime and the reaped children’s times from /proc/<pid>/stat, past a command name with spaces and parentheses', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const line = '4242 (node (bin/start.ts) x) S 4200 4242 4242 0 -1 4194560 9000 0 3 0 1234 56 78 9 20 0 11 0';
    expect(parseProcStat(line)).toEqual({ ppid: 4200, utime: 1234, stime: 56, cutime: 78, cstime: 9 });
    expect(() => parseProcStat('garbage')).toThrow(/not a \/proc/);
  });

  it('divides the ticks spent by the work done, in milliseconds, and gives nothing for no work', () => {
    // 150 ticks at 100 a second is 1.5 s of CPU; over 1,000 webhooks, 1.5 ms each.
    expect(cpuMsPer(1_000, 1_150, 1_000, 100)).toBe(1.5);
    expect(cpuMsPer(1_000, 1_150, 0, 100)).toBeNull();
  });

  it('reads this very process', () => {
    expect(processTicks(process.pid)).toBeGreaterThanOrEqual(0);
    expect(processTicks(2 ** 31 - 1)).toBe(0);
  });

  it('judges intake while draining against the floor and shows the CPU per webhook beside it', () => {
    const target = TARGETS.find((t) => t.figure === 'topology.intake-draining')!;
    const figure = (id: string, value: number, beside: string): Figure => ({
      id,
      label: id,
      value,
      unit: 'req/s',
      beside,
    });
    const figures = new Map([
      ['topology.intake-floor', figure('topology.intake-floor', 1_000, 'web 0.3 ms CPU/webhook')],
      ['topology.intake-draining', figure('topology.intake-draining', 790, 'web 0.31 ms CPU/webhook')],
    ]);
    expect(evaluate(target, figures)).toMatchObject({
      verdict: 'MISS',
      ratio: 0.79,
      beside: 'web 0.31 ms CPU/webhook',
    });
  });
});
