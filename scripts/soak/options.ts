import { parseArgs } from 'node:util';

/** The soak's command line, read the same way by the supervisor (for its deadline) and by the run. */
export interface SoakOptions {
  seconds: number;
  concurrency: number;
  faultEveryMs: number;
  settleMs: number;
  tolerance: { ratio: number; bytes: number };
  /** Added to the traffic and settle time to make the whole run's hard deadline (start-up, finishing stories, the verdict, stopping). */
  marginMs: number;
  /**
   * Test only: a stall injected at the first Redis fault (`redis`: the restarted server never
   * answers; `event-loop`: the run blocks; `fork`: the restart's spawn waits on a child that never
   * execs, as issue 26's did).
   */
  injectStall?: 'redis' | 'event-loop' | 'fork';
}

export const SOAK_USAGE =
  'npm run soak -- [--seconds 300] [--concurrency 3] [--fault-every 15] [--settle-seconds 420] [--memory-tolerance 0.5] [--memory-tolerance-mb 64] [--margin-seconds 300] [--inject-stall redis|event-loop|fork]';

/** Parses `argv`; on a bad value, says what is wrong with the usage line and exits 2. */
export function parseSoakOptions(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '3' },
      'fault-every': { type: 'string', default: '15' },
      'settle-seconds': { type: 'string', default: '420' },
      'memory-tolerance': { type: 'string', default: '0.5' },
      'memory-tolerance-mb': { type: 'string', default: '64' },
      'margin-seconds': { type: 'string', default: '300' },
      'inject-stall': { type: 'string' },
    },
  });
  const number = (name: keyof typeof values, min: number) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min) fail(`--${name} must be a number ≥ ${min}`);
    return value;
  };
  const stall = values['inject-stall'];
  if (stall !== undefined && stall !== 'redis' && stall !== 'event-loop' && stall !== 'fork')
    fail('--inject-stall must be redis, event-loop or fork');
  return {
    seconds: number('seconds', 10),
    concurrency: Math.round(number('concurrency', 1)),
    faultEveryMs: number('fault-every', 5) * 1000,
    settleMs: number('settle-seconds', 10) * 1000,
    tolerance: { ratio: number('memory-tolerance', 0), bytes: number('memory-tolerance-mb', 0) * 1024 * 1024 },
    marginMs: number('margin-seconds', 10) * 1000,
    ...(stall ? { injectStall: stall } : {}),
  };
}

/** The whole run's hard deadline: its traffic, its longest settle, and the fixed margin. */
export function hardDeadlineMs(options: SoakOptions): number {
  return options.seconds * 1000 + options.settleMs + options.marginMs;
}

function fail(message: string): never {
  process.stderr.write(`${message}: ${SOAK_USAGE}\n`);
  process.exit(2);
}
