import path from 'node:path';
import { z } from 'zod';

/**
 * Every setting the service reads from its environment, validated once at start.
 * Secrets (database passwords inside DATABASE_URL, carrier keys, …) live only here and are never logged:
 * `describeConfig` prints a redacted view.
 */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Unset and empty both mean "not configured". */
const optionalUrl = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined))
  .pipe(z.url().optional());

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: optionalUrl,
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  REDIS_URL: optionalUrl,
});

export interface Config {
  port: number;
  /** Base of record_url / playback_url; no trailing slash. */
  publicUrl: string;
  /** Real PostgreSQL when set; otherwise the embedded PGlite database under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: (typeof logLevels)[number];
  redisUrl: string | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  }
  const value = parsed.data;
  return {
    port: value.PORT,
    publicUrl: (value.PUBLIC_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, ''),
    databaseUrl: value.DATABASE_URL,
    dataDir: path.resolve(value.DATA_DIR),
    logLevel: value.LOG_LEVEL,
    redisUrl: value.REDIS_URL,
  };
}

/** A view of the configuration that is safe to log: credentials inside URLs are masked. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    port: config.port,
    publicUrl: config.publicUrl,
    database: config.databaseUrl ? redactUrl(config.databaseUrl) : `embedded PGlite in ${config.dataDir}`,
    dataDir: config.dataDir,
    redis: config.redisUrl ? redactUrl(config.redisUrl) : 'private redis-server child process',
    logLevel: config.logLevel,
  };
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '***';
  }
}
