import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Credentials can reach a log line only through request headers or
 * configuration, so those paths are redacted here once.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'doorstep' },
      serializers: { err: errorWithoutValues, error: errorWithoutValues },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          '*.apiKey',
          '*.api_key',
          '*.password',
          '*.clientSecret',
        ],
        censor: '***',
      },
    },
    destination,
  );
}

/**
 * Database errors carry what was sent with the statement: PGlite attaches `params` (order uuids —
 * the keys to the record and watch pages —, names, e-mails) and PostgreSQL's `detail` quotes the
 * offending values ("Key (email)=(ann@example.com) already exists"). The log keeps what says *which*
 * statement failed and *why* (SQL text, SQLSTATE, constraint, message), never the values.
 */
const VALUE_CARRYING_FIELDS = ['params', 'parameters', 'queryOptions', 'detail', 'where', 'internalQuery'];

function errorWithoutValues(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const field of VALUE_CARRYING_FIELDS) delete serialized[field];
  return serialized;
}
