import path from 'node:path';
import type { BodyReadLimits } from './http/body-reads.ts';
import { z } from 'zod';
import { optionalSetting } from './validation.ts';
import { BudgetFormatError, describeBudget, parseBudget, type CarrierBudget } from './carriers/budget.ts';
import type { CarrierCode } from './carriers/carrier-code.ts';
import { fedexSecurityTokenProblem } from './carriers/clients/fedex-aiv.ts';
import {
  loadShopifyBillingConfig,
  ShopifyBillingConfigError,
  type ShopifyBillingConfig,
} from './billing/shopify-config.ts';
import { DEFAULT_SEND_TIMING, DEFAULT_SMTP_MAX_CONNECTIONS, type SendTiming } from './notifications/send-policy.ts';
import type { SmsProviderConfig } from './notifications/sms.ts';
import {
  describeEmailEventConfig,
  EmailEventConfigError,
  loadEmailEventConfig,
  type EmailEventConfig,
} from './notifications/email-events/email-events-config.ts';
import { loadShopifyConfig, ShopifyConfigError, type ShopifyConfig } from './shopify/config.ts';
import { parseTokenKey, TOKEN_KEY_FORMAT, tokenKeyId, TokenKeyFormatError } from './shopify/auth/token-cipher.ts';
import { describeVideoConfig, loadVideoConfig, VideoConfigError, type VideoConfig } from './videos/config.ts';

/**
 * Every setting the service reads from its environment, validated once at start.
 * Secrets (database passwords inside DATABASE_URL, carrier keys, …) live only here and are never logged:
 * `describeConfig` prints a redacted view.
 */
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Unset and empty both mean "not configured". */
const optionalUrl = optionalSetting.pipe(z.url().optional());

/** `60/hour`, `3/minute`, `140/10s`; unset or empty → the carrier's default (src/carriers/budget.ts). */
const budgetSetting = z
  .string()
  .optional()
  .transform((value, ctx): CarrierBudget | null => {
    if (!value?.trim()) return null;
    try {
      return parseBudget(value);
    } catch (error) {
      if (!(error instanceof BudgetFormatError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });

/** A Shopify token encryption key (src/shopify/auth/token-cipher.ts); unset or empty → null. */
const tokenKeySetting = z
  .string()
  .optional()
  .transform((value, ctx): Buffer | null => {
    if (!value?.trim()) return null;
    try {
      return parseTokenKey(value);
    } catch (error) {
      if (!(error instanceof TokenKeyFormatError)) throw error;
      ctx.addIssue({ code: 'custom', message: TOKEN_KEY_FORMAT });
      return z.NEVER;
    }
  });

/** Keys of earlier rotations, comma-separated: they still open stored tokens, never seal new ones. */
const previousTokenKeysSetting = z
  .string()
  .optional()
  .transform((value, ctx): Buffer[] => {
    const listed = (value ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean);
    const keys: Buffer[] = [];
    for (const [index, text] of listed.entries()) {
      try {
        keys.push(parseTokenKey(text));
      } catch (error) {
        if (!(error instanceof TokenKeyFormatError)) throw error;
        ctx.addIssue({ code: 'custom', message: `key ${index + 1} of ${listed.length} ${TOKEN_KEY_FORMAT}` });
        return z.NEVER;
      }
    }
    return keys;
  });

const environmentSchema = z.object({
  // `shopify app dev` sets PORT to the port its tunnel forwards to (shopify.web.toml: one web process with
  // both roles, so its FRONTEND_PORT and BACKEND_PORT are the same number).
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: optionalUrl,
  /**
   * The tunnel URL `shopify app dev` hands its web process (it sets HOST to the same value; we read
   * APP_URL because HOST is a generic name shells and tools set to a bare host name). The default of
   * PUBLIC_URL, so that record and watch links point where the dev store's shoppers can reach them.
   */
  APP_URL: optionalUrl,
  DATABASE_URL: optionalSetting.pipe(
    z
      .string()
      .refine(isPostgresUrl, {
        message: 'must be a PostgreSQL URL like postgres://user:password@host:5432/database',
      })
      .optional(),
  ),
  /**
   * `production` refuses the development conveniences: the carrier sandbox unless CARRIER_SANDBOX=on,
   * a token key in DATA_DIR, a generated operator password. Default: production when
   * NODE_ENV=production (the Docker image), else development — whatever the database is.
   */
  DOORSTEP_ENV: z.enum(['development', 'production'], { error: 'must be development or production' }).optional(),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  REDIS_URL: optionalUrl,
  ...carrierSettings('UPS', 'https://onlinetools.ups.com'),
  ...carrierSettings('FEDEX', 'https://apis.fedex.com'),
  ...carrierSettings('USPS', 'https://apis.usps.com'),
  CARRIER_SANDBOX: z.enum(['on', 'off']).optional(),
  /** Carrier push (docs/tracking.md "Push"); `off` keeps every carrier on polling. */
  CARRIER_PUSH: z.enum(['on', 'off']).default('on'),
  /** The webhook credentials registered with UPS Track Alert (the client id/secret UPS uses at our token URL). */
  UPS_PUSH_CLIENT_ID: z.string().trim().optional(),
  UPS_PUSH_CLIENT_SECRET: z.string().trim().optional(),
  /** USPS Subscriptions-Tracking: `off` keeps USPS on polling even with a secret. */
  USPS_PUSH: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  /** The listener secret sent to USPS on create; USPS signs its notifications with it. Never logged. */
  USPS_PUSH_SECRET: z
    .string()
    .trim()
    .min(32, { error: 'must be at least 32 characters (USPS requires it)' })
    .optional(),
  /** FedEx Advanced Integrated Visibility (tracking-number subscription): `off` keeps FedEx on polling. */
  FEDEX_PUSH: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  /** The AIV webhook project's security token; FedEx signs each post's `fdx-signature` with it. Never logged. */
  FEDEX_PUSH_SECURITY_TOKEN: z
    .string()
    .trim()
    .superRefine((token, ctx) => {
      const problem = fedexSecurityTokenProblem(token);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** The US 9-digit FedEx account the AIV project bills (FedEx requires one). */
  FEDEX_PUSH_ACCOUNT_NUMBER: z
    .string()
    .trim()
    .regex(/^\d{9}$/, { error: 'must be the 9-digit US FedEx account of the AIV project' })
    .optional(),
  FEDEX_PUSH_PROJECT_ID: z.string().trim().min(1).optional(),
  /** The AIV project's own API keys, when they are not FEDEX_CLIENT_ID/SECRET's project. */
  FEDEX_PUSH_CLIENT_ID: z.string().trim().optional(),
  FEDEX_PUSH_CLIENT_SECRET: z.string().trim().optional(),
  /**
   * Where this process reaches the sandbox (mounted by the web process). Default: its own PORT on
   * loopback, right for `npm start`; a worker on another machine or container names the web's.
   */
  CARRIER_SANDBOX_URL: optionalUrl,
  CARRIER_VALIDATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(2_500),
  WORKERS: z.enum(['on', 'off']).default('on'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Crash recovery and backoff of sends (docs/notifications.md); the defaults are the production values. */
  SEND_CLAIM_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(DEFAULT_SEND_TIMING.claimTimeoutMs),
  SEND_SENDING_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(DEFAULT_SEND_TIMING.sendingTimeoutMs),
  SEND_RETRY_FIRST_DELAY_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(DEFAULT_SEND_TIMING.retryFirstDelayMs),
  /** How often each worker process runs the reconciler (jobs/start-workers.ts): each domain hands over again what a lost job would have done. */
  RECONCILE_EVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  SHOPIFY_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  AUTH_FAILURES_PER_APP_ID: z.coerce.number().int().min(0).max(1_000_000).default(10),
  AUTH_FAILURES_PER_CLIENT_IP: z.coerce.number().int().min(0).max(1_000_000).default(100),
  BODY_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  BODY_READS_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(128),
  BODY_READS_PER_CLIENT: z.coerce.number().int().min(0).max(100_000).default(16),
  BODY_BYTES_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(16 * 1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  SMTP_URL: optionalUrl,
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(50).default(DEFAULT_SMTP_MAX_CONNECTIONS),
  EMAIL_FROM: z.string().trim().min(3).default('Doorstep <no-reply@doorstep.localhost>'),
  SMS_API_URL: z.url().default('https://api.twilio.com'),
  SMS_ACCOUNT_SID: z.string().trim().optional(),
  SMS_AUTH_TOKEN: z.string().trim().optional(),
  SMS_FROM: z.string().trim().optional(),
  /** BullMQ key prefix: processes that share a Redis and a prefix share their queues. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1_200),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('doorstep'),
  /** Who may read /metrics and /admin/queues (docs/operations.md); unset → see `operator` below. */
  /** Where merchants, senders and recipients write, shown on /support and /privacy (and the App Store listing). */
  SUPPORT_EMAIL: z.string().trim().pipe(z.email()).optional(),
  OPERATOR_USERNAME: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .regex(/^[^:]+$/, 'must not contain ":"')
    .default('operator'),
  OPERATOR_PASSWORD: optionalSetting.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Shopify tokens at rest (docs/operations.md "Shopify token encryption key"). */
  TOKEN_ENCRYPTION_KEY: tokenKeySetting,
  TOKEN_ENCRYPTION_PREVIOUS_KEYS: previousTokenKeysSetting,
  /** The worker's own HTTP server for /metrics, /healthz and /readyz; 0 = a free port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
});

function carrierSettings<P extends string>(prefix: P, defaultBaseUrl: string) {
  return {
    [`${prefix}_BASE_URL`]: z.url().default(defaultBaseUrl),
    [`${prefix}_CLIENT_ID`]: z.string().trim().optional(),
    [`${prefix}_CLIENT_SECRET`]: z.string().trim().optional(),
    [`${prefix}_QUOTA`]: budgetSetting,
  } as Record<`${P}_BASE_URL`, z.ZodDefault<z.ZodURL>> &
    Record<`${P}_CLIENT_ID` | `${P}_CLIENT_SECRET`, z.ZodOptional<z.ZodString>> &
    Record<`${P}_QUOTA`, typeof budgetSetting>;
}

/** A carrier's API credentials; absent → that carrier runs against the built-in sandbox. */
export interface CarrierCredentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface Config {
  port: number;
  /** Base of record_url / playback_url (PUBLIC_URL, else the Shopify CLI's APP_URL); no trailing slash. */
  publicUrl: string;
  /** Real PostgreSQL when set; otherwise the embedded PGlite database under dataDir. */
  databaseUrl: string | undefined;
  /** DOORSTEP_ENV (default: production when NODE_ENV=production): no development conveniences. */
  production: boolean;
  dataDir: string;
  logLevel: (typeof logLevels)[number];
  redisUrl: string | undefined;
  /** Null credentials → that carrier uses the sandbox; only possible when `carrierSandbox` is on. */
  carriers: Record<CarrierCode, CarrierCredentials | null>;
  /** Tracking calls per window per carrier (`USPS_QUOTA=3/minute`); null → the default (src/carriers/budget.ts). */
  carrierQuotas: Record<CarrierCode, CarrierBudget | null>;
  /** Mount the fake carrier APIs at /sandbox. Default: on in development, off in production. */
  carrierSandbox: boolean;
  /**
   * Carrier push. `ups`: the webhook credentials registered with UPS Track Alert; null with real UPS
   * credentials → UPS is polled only. A sandboxed UPS gets throw-away credentials at start.
   */
  carrierPush: {
    enabled: boolean;
    ups: { clientId: string; clientSecret: string } | null;
    /**
     * USPS Subscriptions-Tracking: `enabled` is USPS_PUSH; `secret` the listener secret (null with real
     * USPS credentials → USPS is polled only; a sandboxed USPS gets a throw-away one).
     */
    usps: { enabled: boolean; secret: string | null };
    /**
     * FedEx AIV: `enabled` is FEDEX_PUSH; `securityToken` the webhook project's (null with real FedEx
     * credentials → FedEx is polled only; a sandboxed FedEx gets a throw-away one). `client`: the
     * project's API keys when they differ from the Track API's.
     */
    fedex: {
      enabled: boolean;
      securityToken: string | null;
      accountNumber: string | null;
      projectId: string | null;
      client: { clientId: string; clientSecret: string } | null;
    };
  };
  /** CARRIER_SANDBOX_URL: the sandbox's base URL as this process reaches it; undefined → its own PORT. */
  carrierSandboxUrl: string | undefined;
  /** How long PUT waits for the carrier to validate a tracking number before answering with a warning. */
  carrierValidationTimeoutMs: number;
  /** `off` runs the web server alone (production splits web and worker processes). */
  workers: boolean;
  /** How long SIGTERM/SIGINT waits for in-flight requests and jobs before the process exits with 1. */
  shutdownTimeoutMs: number;
  /**
   * The niceness `npm run worker` gives itself: on a machine it shares with web processes, webhook
   * intake (answered within Shopify's 5 s) gets the CPU before the backlog's processing does.
   */
  workerNice: number;
  /** When an interrupted send is recovered and how a failed one backs off (src/notifications/send-policy.ts). */
  sendTiming: SendTiming;
  /** How often a worker process runs the reconciler. */
  reconcileEveryMs: number;
  /**
   * Shopify webhooks one worker process processes at once. A job mostly waits on PostgreSQL (its
   * statements and two commits), so several in flight keep the database busy; each holds a pooled
   * connection only while a statement or its one transaction runs (docs/scaling.md).
   */
  shopifyWebhookConcurrency: number;
  /** Small bodies (JSON, webhooks): the deadline for each, and how many may arrive at once (src/http/body-reads.ts). */
  bodyReads: BodyReadLimits;
  /** Failed Basic-auth attempts per 15 minutes before 429 (src/http/failed-auth-limit.ts). */
  failedAuthLimits: { perAppId: number; perClientIp: number };
  /** SMTP server for e-mail; unset → .eml files in `${dataDir}/outbox`. */
  smtpUrl: string | undefined;
  /**
   * SMTP connections the process keeps open (nodemailer's pool), and so how many messages the send
   * dispatcher hands over at once, SMS included (src/notifications/dispatcher.ts).
   */
  smtpMaxConnections: number;
  emailFrom: string;
  /** Twilio-compatible SMS API; null → SMS written to the outbox. */
  sms: SmsProviderConfig | null;
  /** E-mail providers' event webhooks (bounces): src/notifications/email-events-config.ts. */
  emailEvents: EmailEventConfig;
  queuePrefix: string;
  /** /v1 requests a minute per account before 429; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Upload limit and storage (local disk or S3-compatible): src/videos/config.ts. */
  videos: VideoConfig;
  /** The Shopify app's key, secret, scopes and URL: src/shopify/config.ts. */
  shopify: ShopifyConfig;
  /** Shopify shops' revenue share, capped amount and test charges: src/billing/shopify-config.ts. */
  shopifyBilling: ShopifyBillingConfig;
  /** SUPPORT_EMAIL (optional): the contact on /support and /privacy. */
  supportEmail: string | undefined;
  /**
   * Basic credentials for /metrics and /admin/queues. Null when OPERATOR_PASSWORD is unset: `npm start`
   * on the embedded defaults then generates one (src/operations/operator-credentials.ts); otherwise
   * those endpoints answer 503.
   */
  operator: OperatorCredentials | null;
  /** The worker process's metrics/health port (`npm run worker`). */
  metricsPort: number;
  /**
   * The keys of Shopify tokens at rest: `key` seals every write, `previousKeys` still open values of
   * earlier rotations. A null key (TOKEN_ENCRYPTION_KEY unset, only allowed on the embedded defaults)
   * is generated once into `$DATA_DIR/token-encryption-key` (src/shopify/auth/token-key-file.ts).
   */
  tokenEncryption: { key: Buffer | null; previousKeys: Buffer[] };
}

export interface OperatorCredentials {
  username: string;
  password: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Settings whose value is never echoed back, even when it is wrong. */
const SECRET_SETTING = /SECRET|TOKEN|PASSWORD|KEY|_URL$/;

/**
 * One line per wrong setting: its name, what it must be, and what it was (`PORT must be a port…,
 * got "abc"` rather than zod's "received NaN"). Secrets and URLs (which may hold passwords) are
 * not echoed.
 */
function describeIssue(issue: z.core.$ZodIssue, env: NodeJS.ProcessEnv): string {
  const name = issue.path.join('.');
  const raw = env[name];
  const message = issue.code === 'invalid_type' && issue.expected === 'number' ? 'must be a number' : issue.message;
  const got = raw === undefined || SECRET_SETTING.test(name) ? '' : `, got ${JSON.stringify(raw)}`;
  return `${name}: ${message}${got}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${describeIssue(issue, env)}`);
    throw new ConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  }
  const value = parsed.data;
  // Half-configured credentials would silently fall back to the sandbox; say so instead.
  const halfConfigured = [
    ['UPS_CLIENT_ID', 'UPS_CLIENT_SECRET', value.UPS_CLIENT_ID, value.UPS_CLIENT_SECRET],
    ['FEDEX_CLIENT_ID', 'FEDEX_CLIENT_SECRET', value.FEDEX_CLIENT_ID, value.FEDEX_CLIENT_SECRET],
    ['USPS_CLIENT_ID', 'USPS_CLIENT_SECRET', value.USPS_CLIENT_ID, value.USPS_CLIENT_SECRET],
    ['UPS_PUSH_CLIENT_ID', 'UPS_PUSH_CLIENT_SECRET', value.UPS_PUSH_CLIENT_ID, value.UPS_PUSH_CLIENT_SECRET],
    ['FEDEX_PUSH_CLIENT_ID', 'FEDEX_PUSH_CLIENT_SECRET', value.FEDEX_PUSH_CLIENT_ID, value.FEDEX_PUSH_CLIENT_SECRET],
  ].filter(([, , id, secret]) => Boolean(id) !== Boolean(secret));
  // The sandbox lets anyone who knows a tracking number "deliver" it. It is the embedded default;
  // with a real database it must be asked for, and every carrier needs credentials otherwise.
  const production =
    (value.DOORSTEP_ENV ?? (env.NODE_ENV === 'production' ? 'production' : 'development')) === 'production';
  const sandbox = value.CARRIER_SANDBOX ? value.CARRIER_SANDBOX === 'on' : !production;
  if (!sandbox) {
    for (const carrier of ['UPS', 'FEDEX', 'USPS'] as const) {
      if (!value[`${carrier}_CLIENT_ID`] || !value[`${carrier}_CLIENT_SECRET`]) {
        halfConfigured.push([`${carrier}_CLIENT_ID`, `${carrier}_CLIENT_SECRET`, 'sandbox off', '']);
      }
    }
  }
  const smsSet = [value.SMS_ACCOUNT_SID, value.SMS_AUTH_TOKEN, value.SMS_FROM].filter(Boolean).length;
  const problems = halfConfigured.map(([id, secret, sandboxOff]) =>
    sandboxOff === 'sandbox off'
      ? `  ${id} and ${secret} are required: in production (DOORSTEP_ENV=production, or NODE_ENV=production) the carrier sandbox is off (set CARRIER_SANDBOX=on to use it, e.g. for a staging server)`
      : `  ${id} and ${secret} must be set together`,
  );
  // A real AIV project bills a US account; without it the association request cannot name one.
  if (
    value.FEDEX_PUSH === 'on' &&
    value.FEDEX_PUSH_SECURITY_TOKEN &&
    value.FEDEX_CLIENT_ID &&
    !value.FEDEX_PUSH_ACCOUNT_NUMBER
  )
    problems.push(
      '  FEDEX_PUSH_ACCOUNT_NUMBER is required with FEDEX_PUSH_SECURITY_TOKEN: the 9-digit US FedEx account of the Advanced Integrated Visibility project (or set FEDEX_PUSH=off)',
    );
  if (smsSet !== 0 && smsSet !== 3)
    problems.push('  SMS_ACCOUNT_SID, SMS_AUTH_TOKEN and SMS_FROM must be set together');
  // Web and worker processes share the database, so they must share the key: a key generated into
  // each process's own DATA_DIR would leave each unable to read the others' tokens.
  if (production && !value.TOKEN_ENCRYPTION_KEY)
    problems.push(
      '  TOKEN_ENCRYPTION_KEY is required in production: every process sharing the database encrypts Shopify tokens with it; make one with `openssl rand -base64 32` and give every web and worker process the same value',
    );
  if (problems.length > 0) throw new ConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  const dataDir = path.resolve(value.DATA_DIR);
  const publicUrl = (value.PUBLIC_URL ?? value.APP_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, '');
  let videos: VideoConfig;
  let shopify: ShopifyConfig;
  let shopifyBilling: ShopifyBillingConfig;
  let emailEvents: EmailEventConfig;
  try {
    emailEvents = loadEmailEventConfig(env);
    videos = loadVideoConfig(env, dataDir);
    shopify = loadShopifyConfig(env, publicUrl);
    shopifyBilling = loadShopifyBillingConfig(env, shopify.development);
  } catch (error) {
    if (error instanceof EmailEventConfigError)
      throw new ConfigError(`Invalid configuration in the environment:\n${error.message}`);
    throw error instanceof VideoConfigError ||
      error instanceof ShopifyConfigError ||
      error instanceof ShopifyBillingConfigError
      ? new ConfigError(error.message)
      : error;
  }
  return {
    port: value.PORT,
    publicUrl,
    databaseUrl: value.DATABASE_URL,
    production,
    dataDir,
    logLevel: value.LOG_LEVEL,
    redisUrl: value.REDIS_URL,
    carriers: {
      ups: credentials(value.UPS_BASE_URL, value.UPS_CLIENT_ID, value.UPS_CLIENT_SECRET),
      fedex: credentials(value.FEDEX_BASE_URL, value.FEDEX_CLIENT_ID, value.FEDEX_CLIENT_SECRET),
      usps: credentials(value.USPS_BASE_URL, value.USPS_CLIENT_ID, value.USPS_CLIENT_SECRET),
    },
    carrierQuotas: { ups: value.UPS_QUOTA, fedex: value.FEDEX_QUOTA, usps: value.USPS_QUOTA },
    carrierSandbox: sandbox,
    carrierPush: {
      enabled: value.CARRIER_PUSH === 'on',
      ups:
        value.UPS_PUSH_CLIENT_ID && value.UPS_PUSH_CLIENT_SECRET
          ? { clientId: value.UPS_PUSH_CLIENT_ID, clientSecret: value.UPS_PUSH_CLIENT_SECRET }
          : null,
      usps: { enabled: value.USPS_PUSH === 'on', secret: value.USPS_PUSH_SECRET ?? null },
      fedex: {
        enabled: value.FEDEX_PUSH === 'on',
        securityToken: value.FEDEX_PUSH_SECURITY_TOKEN ?? null,
        accountNumber: value.FEDEX_PUSH_ACCOUNT_NUMBER ?? null,
        projectId: value.FEDEX_PUSH_PROJECT_ID ?? null,
        client:
          value.FEDEX_PUSH_CLIENT_ID && value.FEDEX_PUSH_CLIENT_SECRET
            ? { clientId: value.FEDEX_PUSH_CLIENT_ID, clientSecret: value.FEDEX_PUSH_CLIENT_SECRET }
            : null,
      },
    },
    carrierSandboxUrl: value.CARRIER_SANDBOX_URL?.replace(/\/+$/, ''),
    carrierValidationTimeoutMs: value.CARRIER_VALIDATION_TIMEOUT_MS,
    workers: value.WORKERS === 'on',
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    workerNice: value.WORKER_NICE,
    sendTiming: {
      claimTimeoutMs: value.SEND_CLAIM_TIMEOUT_MS,
      sendingTimeoutMs: value.SEND_SENDING_TIMEOUT_MS,
      retryFirstDelayMs: value.SEND_RETRY_FIRST_DELAY_MS,
    },
    reconcileEveryMs: value.RECONCILE_EVERY_MS,
    shopifyWebhookConcurrency: value.SHOPIFY_WEBHOOK_CONCURRENCY,
    failedAuthLimits: { perAppId: value.AUTH_FAILURES_PER_APP_ID, perClientIp: value.AUTH_FAILURES_PER_CLIENT_IP },
    bodyReads: {
      deadlineMs: value.BODY_READ_TIMEOUT_MS,
      maxInFlight: value.BODY_READS_IN_FLIGHT,
      maxInFlightPerClient: value.BODY_READS_PER_CLIENT,
      maxBytesInFlight: value.BODY_BYTES_IN_FLIGHT,
    },
    smtpUrl: value.SMTP_URL,
    smtpMaxConnections: value.SMTP_MAX_CONNECTIONS,
    emailFrom: value.EMAIL_FROM,
    sms:
      value.SMS_ACCOUNT_SID && value.SMS_AUTH_TOKEN && value.SMS_FROM
        ? {
            baseUrl: value.SMS_API_URL,
            accountSid: value.SMS_ACCOUNT_SID,
            authToken: value.SMS_AUTH_TOKEN,
            from: value.SMS_FROM,
          }
        : null,
    emailEvents,
    queuePrefix: value.QUEUE_PREFIX,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    videos,
    shopify,
    shopifyBilling,
    supportEmail: value.SUPPORT_EMAIL,
    operator: value.OPERATOR_PASSWORD ? { username: value.OPERATOR_USERNAME, password: value.OPERATOR_PASSWORD } : null,
    metricsPort: value.METRICS_PORT,
    tokenEncryption: { key: value.TOKEN_ENCRYPTION_KEY, previousKeys: value.TOKEN_ENCRYPTION_PREVIOUS_KEYS },
  };
}

function credentials(
  baseUrl: string,
  clientId: string | undefined,
  clientSecret: string | undefined,
): CarrierCredentials | null {
  return clientId && clientSecret ? { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, clientSecret } : null;
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
    carriers: Object.fromEntries(Object.entries(config.carriers).map(([code, c]) => [code, c ? c.baseUrl : 'sandbox'])),
    carrierQuotas: Object.fromEntries(
      Object.entries(config.carrierQuotas).map(([code, budget]) => [code, budget ? describeBudget(budget) : 'default']),
    ),
    carrierPush: config.carrierPush.enabled
      ? {
          ups: config.carrierPush.ups ? 'UPS Track Alert' : config.carriers.ups ? 'polling' : 'sandbox',
          usps: !config.carrierPush.usps.enabled
            ? 'off'
            : config.carrierPush.usps.secret
              ? 'Subscriptions-Tracking'
              : config.carriers.usps
                ? 'polling'
                : 'sandbox',
          fedex: !config.carrierPush.fedex.enabled
            ? 'off'
            : config.carrierPush.fedex.securityToken
              ? 'Advanced Integrated Visibility'
              : config.carriers.fedex
                ? 'polling'
                : 'sandbox',
        }
      : 'off',
    workers: config.workers,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    workerNice: config.workerNice,
    sendTiming: config.sendTiming,
    reconcileEveryMs: config.reconcileEveryMs,
    shopifyWebhookConcurrency: config.shopifyWebhookConcurrency,
    email: config.smtpUrl ? redactUrl(config.smtpUrl) : `outbox ${config.dataDir}/outbox`,
    smtpMaxConnections: config.smtpMaxConnections,
    sms: config.sms ? config.sms.baseUrl : `outbox ${config.dataDir}/outbox`,
    emailEvents: describeEmailEventConfig(config.emailEvents),
    videos: describeVideoConfig(config.videos),
    shopify: { appUrl: config.shopify.appUrl, apiKey: config.shopify.apiKey, development: config.shopify.development },
    shopifyBilling: config.shopifyBilling,
    operator: config.operator ? { username: config.operator.username, password: '***' } : 'not configured',
    metricsPort: config.metricsPort,
    // Key ids only (a SHA-256 prefix): enough to tell keys apart, nothing to recover one from.
    tokenEncryption: {
      key: config.tokenEncryption.key ? tokenKeyId(config.tokenEncryption.key) : `generated in ${config.dataDir}`,
      previousKeys: config.tokenEncryption.previousKeys.map(tokenKeyId),
    },
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

/**
 * A PostgreSQL connection URL with a host and a database. Checked at start so that a malformed one
 * (no scheme, a stray `@` in the password, no database) is called malformed at once, rather than
 * showing up as "connection refused" after the connection's retries. Never echoes the value.
 */
function isPostgresUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return false;
  // A socket directory (`?host=/var/run/postgresql`) may stand for the host.
  const hasHost = url.hostname !== '' || (url.searchParams.get('host') ?? '') !== '';
  return hasHost && !url.hostname.includes('@') && url.pathname.replace(/^\//, '') !== '';
}
