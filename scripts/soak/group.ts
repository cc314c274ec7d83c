import fs from 'node:fs';

/** Signals every process in the group; a group that has already ended is not an error. */
export function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // ESRCH: nobody left in it.
  }
}

/** True once no process is left in the group, false if some still are after `timeoutMs`. */
export async function waitForGroupToEnd(group: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (membersOf(group).length === 0) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * One line per process in the group: pid, state, the kernel function it sleeps in and the system
 * call its main thread is in, and its command — what a stall is blocked on, read from /proc before
 * the group is stopped. (A Node process blocked in `futex` with no CPU is waiting on another
 * thread; in `write`, on a full pipe; in `epoll_wait`, on its event loop, which is then idle.)
 */
export function describeProcessGroup(group: number): string[] {
  return membersOf(group).map((pid) => {
    const read = (file: string) => {
      try {
        return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
      } catch {
        return '';
      }
    };
    const state = /^State:\s+(.*)$/m.exec(read('status'))?.[1] ?? '?';
    const syscall = read('syscall').split(' ')[0] ?? '?';
    const command = read('cmdline').split('\0').join(' ').trim().slice(0, 160);
    return `pid ${pid} ${state}, in ${read('wchan') || '?'} (syscall ${syscallName(syscall)}): ${command}`;
  });
}

/** Processes (zombies excluded: they are already gone) whose process group is `group`. */
function membersOf(group: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After "(comm)": state, ppid, pgrp, … — comm may itself hold spaces and parentheses.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group && state !== 'Z') members.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return members;
}

/** The x86-64 numbers of the system calls a stalled process is usually found in. */
function syscallName(number: string): string {
  const names: Record<string, string> = {
    '0': 'read',
    '1': 'write',
    '7': 'poll',
    '35': 'nanosleep',
    '61': 'wait4',
    '202': 'futex',
    '232': 'epoll_wait',
    '281': 'epoll_pwait',
  };
  return names[number] ? `${names[number]}` : number;
}
