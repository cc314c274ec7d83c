import { afterAll, beforeAll } from 'vitest';

/**
 * Starts something once before the file's tests and stops it after them; `use` receives it to assign
 * to the file's variables. The tests' `…ForFile` helpers (the test app, the browser, the video app)
 * are this with their own start.
 */
export function forFile<T>(
  start: () => Promise<T>,
  use: (started: T) => void,
  stop: (started: T) => Promise<unknown>,
): void {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    use(started);
  });
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
}
