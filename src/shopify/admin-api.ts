import { GraphqlClient, HttpResponseError, Session, ShopifyError } from '@shopify/shopify-api';
import { ServiceUnavailableError } from '../errors.ts';
import type { ShopifyLibrary } from './library.ts';

/**
 * The Admin API calls Doorstep makes. Webhook payloads carry everything the order flow needs; the
 * Admin API names the shop's account at install, and billing (src/billing/) uses `adminGraphql`.
 */

/** The library's session for a shop's offline token (no storage: the token is ours, in `shops`). */
export function offlineSession(domain: string, accessToken: string): Session {
  return new Session({ id: `offline_${domain}`, shop: domain, state: '', isOnline: false, accessToken });
}

/** The library's GraphQL client for a shop's offline token. */
/** The part of the Admin GraphQL client Doorstep uses. */
export type AdminGraphql = Pick<GraphqlClient, 'request'>;

/** Who is told when Shopify refuses an access token (ShopTokens, which has it renewed). */
const refusedTokenListeners = new WeakMap<ShopifyLibrary, (domain: string, accessToken: string) => Promise<void>>();

export function onRefusedAccessToken(
  shopify: ShopifyLibrary,
  listener: (domain: string, accessToken: string) => Promise<void>,
): void {
  refusedTokenListeners.set(shopify, listener);
}

/**
 * An Admin GraphQL client for the shop. A 401 (a token revoked, or one Shopify no longer knows) is
 * told to the token keeper before it is thrown, so the token is renewed — refreshed, or exchanged at
 * the merchant's next visit — instead of being sent, and refused, for ever (upgrade probe).
 */
export function adminGraphql(shopify: ShopifyLibrary, accessToken: string, domain: string): AdminGraphql {
  const client = new shopify.clients.Graphql({ session: offlineSession(domain, accessToken) });
  return {
    request: (async (...args: Parameters<GraphqlClient['request']>) => {
      try {
        return await client.request(...args);
      } catch (error) {
        if (isRefusedToken(error))
          await refusedTokenListeners
            .get(shopify)?.(domain, accessToken)
            .catch(() => undefined);
        throw error;
      }
    }) as GraphqlClient['request'],
  };
}

/** Shopify answered 401: the access token is not (or no longer) one it takes. */
export function isRefusedToken(error: unknown): boolean {
  return error instanceof HttpResponseError && error.response.code === 401;
}

/**
 * What Doorstep keeps of a shop from Shopify: its name (the account's), its time zone (the admin's
 * dates) and its customer-facing contact address (the e-mails' Reply-To).
 */
export interface ShopProfile {
  name: string | null;
  /** IANA ("America/New_York"), as Shopify's `shop.ianaTimezone`. */
  ianaTimezone: string | null;
  /** `shop.contactEmail`: the address the store answers customers from (not the owner's login). */
  contactEmail: string | null;
}

export async function fetchShopProfile(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<ShopProfile> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{
    shop: { name: string; ianaTimezone?: string | null; contactEmail?: string | null };
  }>('query DoorstepShopProfile { shop { name ianaTimezone contactEmail } }');
  const shop = response.data?.shop;
  return {
    name: shop?.name ?? null,
    ianaTimezone: shop?.ianaTimezone ?? null,
    contactEmail: shop?.contactEmail ?? null,
  };
}

/**
 * The shop's primary locale (`fr`, `pt-BR`, …: Shopify's ISO codes), the language its customers read
 * first: its record and watch pages and its messages speak it (src/i18n/locale.ts maps it to one we
 * have). Needs the `read_locales` scope (Admin GraphQL `shopLocales`); null when no locale is primary.
 */
export async function fetchShopPrimaryLocale(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{ shopLocales: Array<{ locale: string; primary: boolean }> }>(
    'query DoorstepShopLocale { shopLocales { locale primary } }',
  );
  return response.data?.shopLocales.find((shopLocale) => shopLocale.primary)?.locale ?? null;
}

/** The shop's contact e-mail (`shop { email }`): where its test gift goes. */
export async function fetchShopEmail(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{ shop: { email: string | null } }>(
    'query DoorstepShopEmail { shop { email } }',
  );
  return response.data?.shop.email ?? null;
}

/**
 * The main theme's product template (`templates/product.json`), as text; null when the theme has
 * none (a Liquid product template, which cannot hold app blocks). Needs `read_themes`.
 */
export async function fetchProductTemplate(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
): Promise<string | null> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{
    themes: { nodes: Array<{ files: { nodes: Array<{ body: { content?: string } | null }> } }> };
  }>(
    `query DoorstepProductTemplate {
      themes(first: 1, roles: [MAIN]) {
        nodes { files(filenames: ["templates/product.json"], first: 1) { nodes { body { ... on OnlineStoreThemeFileBodyText { content } } } } }
      }
    }`,
  );
  return response.data?.themes.nodes[0]?.files.nodes[0]?.body?.content ?? null;
}

/**
 * Whether the shop has the Shopify order: Admin GraphQL `order(id:)` answers null for an order of
 * another shop (or none). Needs `read_orders`; webhooks.ts asks it before a first sight of an order
 * id binds the id to the shop the unsigned header names.
 */
export async function shopHasOrder(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
  shopifyOrderId: string,
): Promise<boolean> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{ order: { id: string } | null }>(
    'query DoorstepOrderOfShop($id: ID!) { order(id: $id) { id } }',
    { variables: { id: `gid://shopify/Order/${shopifyOrderId}` } },
  );
  return response.data?.order != null;
}

/** What Shopify says of a shop's plan: whether it can only accept test charges (billing/test-charges.ts). */
export interface ShopPlan {
  /** A development store (a Partner's, or one made for App Store review). */
  partnerDevelopment: boolean;
  /** The plan's name as Shopify shows it ("Basic", "Staff", "Developer Preview", …). */
  publicDisplayName: string | null;
}

/** Admin GraphQL `shop { plan { partnerDevelopment publicDisplayName } }`. */
export async function fetchShopPlan(shopify: ShopifyLibrary, accessToken: string, domain: string): Promise<ShopPlan> {
  const client = adminGraphql(shopify, accessToken, domain);
  const response = await client.request<{
    shop: { plan: { partnerDevelopment: boolean; publicDisplayName?: string | null } };
  }>('query DoorstepShopPlan { shop { plan { partnerDevelopment publicDisplayName } } }');
  const plan = response.data?.shop.plan;
  return { partnerDevelopment: plan?.partnerDevelopment === true, publicDisplayName: plan?.publicDisplayName ?? null };
}

/**
 * A failure of the Shopify library (an HTTP error answer, a GraphQL error, throttling, the network)
 * as the domain's "try again later" (503 in a response, a retry in a job); anything else as it is.
 * `doing` says in words what was asked of Shopify.
 */
export function shopifyUnavailable(error: unknown, doing: string): unknown {
  if (!(error instanceof ShopifyError) && !isNetworkFailure(error)) return error;
  if (isRefusedToken(error))
    return new ServiceUnavailableError(
      `Shopify refused Doorstep's access token ${doing}; it is renewed, or exchanged when the merchant next opens the app in the Shopify admin.`,
      { cause: error },
    );
  return new ServiceUnavailableError(
    `Shopify could not be reached ${doing}; try again in a moment. (${(error as Error).message})`,
    {
      cause: error,
    },
  );
}

/** `fetch` failing before any answer (DNS, refused, reset, timed out): Shopify was not reached. */
function isNetworkFailure(error: unknown): boolean {
  const codes = [
    'ENOTFOUND',
    'EAI_AGAIN',
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
  ];
  const codeOf = (value: unknown) => String((value as { code?: unknown } | null)?.code ?? '');
  const cause = (error as { cause?: unknown } | null)?.cause;
  return (
    codes.includes(codeOf(error)) ||
    codes.includes(codeOf(cause)) ||
    (error instanceof TypeError && error.message === 'fetch failed')
  );
}
