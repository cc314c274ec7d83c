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
  return membersOf(group).map(({ pid }) => {
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

/**
 * Members of the group that are forked copies of a Node parent that never became the program they
 * were forked for: Node's executable and the parent's command line, the parent also in the group.
 *
 * Why (issue 26's stall): libuv's `uv_spawn` — behind every `child_process.spawn`, asynchronous or
 * not — forks, then blocks the calling thread reading a pipe that closes only when the child calls
 * `exec` or dies. A child that deadlocks between fork and exec (fork in a multi-threaded process
 * inherits locks that other threads held) blocks its parent's event loop for ever: no output, no
 * CPU, no timer fires (public report: xing-shuyin/pi-web-ui#79). A healthy child execs within
 * milliseconds; Node never forks without exec, so a member that keeps its parent's command line for
 * seconds is stuck there. Killing it closes the pipe: the parent's spawn returns, and its child
 * reports an exit by SIGKILL that the caller can retry.
 */
export function membersStuckBeforeExec(group: number): number[] {
  const members = new Map(membersOf(group).map((member) => [member.pid, member]));
  return [...members.values()]
    .filter((member) => {
      const parent = members.get(member.ppid);
      if (!parent) return false;
      // Node's forks only: redis-server and PostgreSQL fork children that never exec, on purpose.
      if (executable(member.pid) !== NODE || executable(parent.pid) !== NODE) return false;
      const command = commandLine(member.pid);
      return command !== '' && command === commandLine(parent.pid);
    })
    .map((member) => member.pid);
}

const NODE = fs.realpathSync(process.execPath);

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function executable(pid: number): string {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
  }
}

/** Processes (zombies excluded: they are already gone) whose process group is `group`. */
function membersOf(group: number): Array<{ pid: number; ppid: number }> {
  const members: Array<{ pid: number; ppid: number }> = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After "(comm)": state, ppid, pgrp, … — comm may itself hold spaces and parentheses.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group && state !== 'Z') members.push({ pid: Number(entry), ppid: Number(ppid) });
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
