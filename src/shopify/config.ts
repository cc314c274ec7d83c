import { z } from 'zod';
import { optionalSetting } from '../validation.ts';

/**
 * SHOPIFY_* settings, validated once at start (merged into src/config.ts by the composition root).
 * Without SHOPIFY_API_KEY / SHOPIFY_API_SECRET the app runs with fixed *development* credentials so
 * that `npm start` and `npm run cli -- shopify simulate` sign and verify webhooks with the same secret
 * out of the box. They are public (they are in this file): the start-up log says so loudly, and a
 * real Shopify app must set its own.
 */
export const DEVELOPMENT_API_KEY = 'doorstep-development-api-key';
export const DEVELOPMENT_API_SECRET = 'doorstep-development-api-secret';

export const SHOPIFY_API_VERSION = '2026-07';

const scopeList = optionalSetting.pipe(
  z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/, 'must be comma-separated scopes, e.g. read_orders,read_fulfillments')
    .optional(),
);
const optionalUrl = optionalSetting.pipe(z.url().optional());

/**
 * Our own names first; then the names `shopify app dev` gives its web process (Shopify/cli,
 * packages/app/src/cli/services/dev/processes/web.ts, `launchWebProcess`): it sets SHOPIFY_API_KEY
 * and SHOPIFY_API_SECRET under our names already, SCOPES from shopify.app.toml's access_scopes, and
 * APP_URL (and HOST) to its tunnel URL. So `shopify app dev` needs no extra setup.
 */
const shopifyEnvironment = z.object({
  SHOPIFY_API_KEY: optionalSetting,
  SHOPIFY_API_SECRET: optionalSetting,
  SHOPIFY_SCOPES: scopeList,
  SCOPES: scopeList,
  SHOPIFY_APP_URL: optionalUrl,
  APP_URL: optionalUrl,
  /** The theme app extension's id, as the Shopify CLI writes it to the app's .env (`SHOPIFY_<EXTENSION NAME>_ID`): the setup guide's deep link adds its block. */
  SHOPIFY_VIDEO_GIFT_MESSAGE_ID: optionalSetting,
  SHOPIFY_MAX_VIDEO_LINES_PER_ORDER: z.coerce
    .number({ error: 'must be a whole number from 1 to 1000' })
    .int('must be a whole number from 1 to 1000')
    .min(1, 'must be from 1 to 1000')
    .max(1000, 'must be from 1 to 1000')
    .default(25),
});

export interface ShopifyConfig {
  apiKey: string;
  /** The HMAC key of webhooks and OAuth, and the session-token signing key. Never logged. */
  apiSecret: string;
  scopes: string[];
  /**
   * Where Shopify reaches the app (OAuth redirect, embedded admin): SHOPIFY_APP_URL, else the Shopify
   * CLI's APP_URL, else PUBLIC_URL.
   */
  appUrl: string;
  apiVersion: string;
  /** True when running on the built-in development key and secret. */
  development: boolean;
  /**
   * Video line items one Shopify order may turn into video orders (each mails its shopper a record
   * link); the rest are refused, visibly, on the webhook's receipt. A real gift order has a few.
   */
  maxVideoLinesPerOrder: number;
  /**
   * The theme app extension's id (SHOPIFY_VIDEO_GIFT_MESSAGE_ID): the theme editor link adds the block
   * with it. Null when unset on a real app: the link then opens the product template, and the merchant
   * adds the block by hand.
   */
  themeExtensionId: string | null;
}

/** The development credentials' stand-in id of the theme app extension (the sandbox's theme editor accepts it). */
const DEVELOPMENT_THEME_EXTENSION_ID = 'doorstep-development-theme-extension';

export class ShopifyConfigError extends Error {
  override name = 'ShopifyConfigError';
}

export function loadShopifyConfig(env: NodeJS.ProcessEnv, publicUrl: string): ShopifyConfig {
  const parsed = shopifyEnvironment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ShopifyConfigError(`Invalid configuration in the environment:\n${problems.join('\n')}`);
  }
  const value = parsed.data;
  if (Boolean(value.SHOPIFY_API_KEY) !== Boolean(value.SHOPIFY_API_SECRET)) {
    throw new ShopifyConfigError(
      'Invalid configuration in the environment:\n  SHOPIFY_API_KEY and SHOPIFY_API_SECRET must be set together',
    );
  }
  const development = !value.SHOPIFY_API_KEY;
  return {
    apiKey: value.SHOPIFY_API_KEY ?? DEVELOPMENT_API_KEY,
    apiSecret: value.SHOPIFY_API_SECRET ?? DEVELOPMENT_API_SECRET,
    scopes: (
      value.SHOPIFY_SCOPES ??
      value.SCOPES ??
      'read_orders,read_fulfillments,read_locales,read_themes,write_products,write_publications'
    ).split(','),
    // The tunnel wins over PUBLIC_URL: during `shopify app dev` Shopify knows the app only by the tunnel URL.
    appUrl: (value.SHOPIFY_APP_URL ?? value.APP_URL ?? publicUrl).replace(/\/+$/, ''),
    apiVersion: SHOPIFY_API_VERSION,
    development,
    maxVideoLinesPerOrder: value.SHOPIFY_MAX_VIDEO_LINES_PER_ORDER,
    themeExtensionId: value.SHOPIFY_VIDEO_GIFT_MESSAGE_ID ?? (development ? DEVELOPMENT_THEME_EXTENSION_ID : null),
  };
}

/** Safe to log: the secret only when it is the public development one. */
export function describeShopifyConfig(config: ShopifyConfig): Record<string, unknown> {
  return {
    appUrl: config.appUrl,
    scopes: config.scopes.join(','),
    apiVersion: config.apiVersion,
    apiKey: config.apiKey,
    ...(config.development
      ? {
          apiSecret: config.apiSecret,
          credentials: 'DEVELOPMENT (built-in, public; set SHOPIFY_API_KEY and SHOPIFY_API_SECRET for a real app)',
        }
      : {}),
  };
}
