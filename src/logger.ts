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
