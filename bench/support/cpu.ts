import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The CPU fields of one `/proc/<pid>/stat`, in clock ticks. */
export interface ProcStat {
  ppid: number;
  /** User and system time of the process itself (all its threads). */
  utime: number;
  stime: number;
  /** User and system time of its children that have exited and been waited for. */
  cutime: number;
  cstime: number;
}

/**
 * Parses `/proc/<pid>/stat` (proc(5)). The command name (field 2) is in parentheses and may hold
 * spaces or parentheses itself, so the fields are counted from the last `)`.
 */
export function parseProcStat(text: string): ProcStat {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  // After ") ": field 3 (state) is index 0, so field n is index n − 3.
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const field = (n: number) => {
    const value = Number(fields[n - 3]);
    if (!Number.isFinite(value)) throw new Error(`field ${n} of /proc/<pid>/stat is not a number: ${fields[n - 3]}`);
    return value;
  };
  return { ppid: field(4), utime: field(14), stime: field(15), cutime: field(16), cstime: field(17) };
}

/**
 * CPU milliseconds per unit of work between two readings of the same processes' ticks: what the
 * bench reports beside a throughput, since on a shared machine the CPU a request costs moves much
 * less than how many requests a second get done. Null when nothing was done.
 */
export function cpuMsPer(ticksBefore: number, ticksAfter: number, work: number, ticksPerSecond: number): number | null {
  if (work <= 0) return null;
  return ((ticksAfter - ticksBefore) * 1000) / ticksPerSecond / work;
}

let clockTicks: number | undefined;
/** The kernel's clock ticks per second (`getconf CLK_TCK`; 100 on Linux almost everywhere). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // Gone (a PostgreSQL backend that just ended) or not ours to read.
    return undefined;
  }
}

/** utime + stime of one process (every thread), in ticks; 0 once it is gone. */
export function processTicks(pid: number): number {
  const stat = readStat(pid);
  return stat ? stat.utime + stat.stime : 0;
}

/**
 * A process and its direct children together, in ticks: its own time, its reaped children's
 * (cutime + cstime) and its live children's. A child that ends between two readings moves from the
 * third term to the second, so the sum only grows: what a PostgreSQL postmaster and its backends
 * spend.
 */
export function processTreeTicks(pid: number): number {
  const root = readStat(pid);
  if (!root) return 0;
  let total = root.utime + root.stime + root.cutime + root.cstime;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat?.ppid === pid) total += stat.utime + stat.stime;
  }
  return total;
}
