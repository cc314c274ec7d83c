/** A wait that ran past its deadline; the message says what was waited for and for how long. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(
    readonly what: string,
    readonly afterMs: number,
  ) {
    super(`gave up after ${formatMs(afterMs)} waiting for ${what}`);
  }
}

/**
 * `promise`, or a DeadlineError naming `what` once `ms` have passed, whichever comes first. The
 * promise itself is not cancelled (a caller that can cancel, such as a fetch, passes a signal too);
 * what this guarantees is that nobody awaits it forever.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), Math.max(0, ms));
  });
  // Nobody may be listening once the race is decided; the loser's rejection is not an error.
  promise.catch(() => {});
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
