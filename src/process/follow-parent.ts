import fs from 'node:fs';

/** Shells that npm (and others) put between themselves and the command they run. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'busybox']);

/**
 * Under `npm start` the process tree is npm → sh → node, and `kill -TERM <npm pid>` — what a
 * process manager that signals only the process it started does — ends npm alone: the shell and this
 * process (still on its port, with its private redis-server) run on (issue 31, 6). So, when npm
 * started us (`npm_lifecycle_event` is set), we follow it: once a second we look whether npm (the
 * parent, or the shell's parent) is still the process it was, and call `onGone` once if not.
 *
 * Only under npm: a process started with `nohup … &` from a shell that then exits is meant to live on.
 * Linux (/proc); elsewhere, only a change of our own parent is seen.
 */
export function followNpmParent(onGone: (why: string) => void, options: { intervalMs?: number } = {}): () => void {
  if (!process.env.npm_lifecycle_event) return () => {};
  const watched = npmProcess();
  const timer = setInterval(() => {
    if (isSameProcess(watched)) return;
    clearInterval(timer);
    onGone(`npm (pid ${watched.pid}), which started this process, has exited`);
  }, options.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}

interface ProcessIdentity {
  pid: number;
  /** Clock ticks after boot the process started: a reused pid has another. */
  startTime: string | null;
  /** Our parent at the start: when it is the watched process, a new parent means it is gone. */
  viaParent: number;
}

function npmProcess(): ProcessIdentity {
  const parent = process.ppid;
  const parentStat = stat(parent);
  // npm runs a script through `sh -c`: then npm is the shell's parent.
  const pid = parentStat && SHELLS.has(parentStat.comm) ? Number(parentStat.ppid) : parent;
  return { pid, startTime: stat(pid)?.startTime ?? null, viaParent: parent };
}

function isSameProcess(watched: ProcessIdentity): boolean {
  if (watched.pid === watched.viaParent && process.ppid !== watched.pid) return false;
  if (watched.startTime === null) return process.ppid === watched.viaParent;
  const now = stat(watched.pid);
  return now !== null && now.state !== 'Z' && now.startTime === watched.startTime;
}

/** Fields of /proc/<pid>/stat, or null when the process (or /proc) is not there. */
function stat(pid: number): { comm: string; state: string; ppid: string; startTime: string } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; starttime is field 22.
  const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { comm, state: fields[0] ?? '', ppid: fields[1] ?? '', startTime: fields[19] ?? '' };
}
