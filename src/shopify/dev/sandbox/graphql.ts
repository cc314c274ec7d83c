import type { SandboxAnswer } from './http.ts';
import { productTemplateWithBlock } from './theme-editor.ts';
import { decimalCents, type SandboxProduct, type ShopifySandboxState, type SandboxSubscription } from './state.ts';

/**
 * The Admin GraphQL operations Doorstep uses, answered as Shopify does. The sandbox does not parse
 * GraphQL: it recognises each operation by its root field and reads the variables, so the app's
 * queries must pass their arguments as variables (they do: src/billing/billing-api.ts).
 */
interface GraphqlRequest {
  query?: string;
  variables?: Record<string, unknown>;
}

const SUBSCRIPTION_GID = 'gid://shopify/AppSubscription/';

/** Shopify's userError when a usage record would take the cycle past the capped amount. */
export const CAP_EXCEEDED = 'Total price exceeds balance remaining';

export function adminGraphql(
  state: ShopifySandboxState,
  shop: string,
  accessToken: string,
  request: GraphqlRequest,
  publicUrl: string,
): SandboxAnswer {
  if (state.shopOfAccessToken(accessToken) !== shop)
    return {
      status: 401,
      body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' },
    };
  const failure = injectedFailure(state);
  if (failure) return failure;
  const answer = answerGraphql(state, shop, request, publicUrl);
  // Done, but the answer is lost on the way back (`loseGraphqlAnswers`): what a timeout or a 5xx after the work leaves.
  const lost = state.lostGraphqlAnswers.shift();
  return lost === undefined ? answer : { status: lost, body: { errors: 'Internal error' } };
}

function answerGraphql(
  state: ShopifySandboxState,
  shop: string,
  request: GraphqlRequest,
  publicUrl: string,
): SandboxAnswer {
  const query = request.query ?? '';
  const variables = request.variables ?? {};
  if (/\bappSubscriptionCreate\s*\(/.test(query))
    return data({ appSubscriptionCreate: createSubscription(state, shop, variables, publicUrl) });
  if (/\bappUsageRecordCreate\s*\(/.test(query))
    return data({ appUsageRecordCreate: createUsageRecord(state, shop, variables) });
  if (/\border\s*\(/.test(query)) {
    // Shopify answers null for an order that is not this shop's, as for one that does not exist.
    state.orderLookUps.push({ shop, id: String(variables.id ?? '') });
    const id = /^gid:\/\/shopify\/Order\/(\d+)$/.exec(String(variables.id ?? ''))?.[1];
    return data({ order: id && state.orders.get(shop)?.has(id) ? { id: `gid://shopify/Order/${id}` } : null });
  }
  if (/\bnode\s*\(\s*id\s*:/.test(query)) {
    const subscription = subscriptionOf(state, shop, String(variables.id ?? ''));
    return data({ node: subscription ? subscriptionJson(subscription) : null });
  }
  if (/\bcurrentAppInstallation\b/.test(query)) {
    const active = [...state.subscriptions.values()].filter((s) => s.shop === shop && s.status === 'ACTIVE');
    return data({ currentAppInstallation: { activeSubscriptions: active.map(subscriptionJson) } });
  }
  if (/\bshopLocales\b/.test(query)) {
    // The primary first is not promised by Shopify: the app must look for `primary`.
    const primary = state.primaryLocales.get(shop) ?? 'en';
    const others = ['en', 'fr'].filter((locale) => locale !== primary);
    return data({
      shopLocales: [...others.map((locale) => ({ locale, primary: false })), { locale: primary, primary: true }],
    });
  }
  if (/\bshop\s*\{\s*email\b/.test(query)) return data({ shop: { email: `owner@${shop.split('.')[0]}.example.com` } });
  if (/\bthemes\s*\(/.test(query)) {
    const content = state.productTemplates.get(shop) ?? productTemplateWithBlock(null);
    return data({
      themes: { nodes: [{ files: { nodes: [{ filename: 'templates/product.json', body: { content } }] } }] },
    });
  }
  if (/\bproductSet\s*\(/.test(query)) return data({ productSet: setProduct(state, shop, variables) });
  if (/\bappByHandle\s*\(/.test(query))
    return data({
      appByHandle:
        variables.handle === 'online_store' || /handle:\s*"online_store"/.test(query)
          ? { installation: { publication: { id: onlineStorePublication(shop) } } }
          : null,
    });
  if (/\bpublishablePublish\s*\(/.test(query)) return data({ publishablePublish: publish(state, shop, variables) });
  if (/\bshop\s*\{\s*plan\b/.test(query))
    return data({
      shop: { plan: state.shopPlans.get(shop) ?? { partnerDevelopment: false, publicDisplayName: 'Basic' } },
    });
  if (/\bshop\s*\{\s*name\b/.test(query))
    return data({
      shop: {
        name: `Fake ${shop.split('.')[0]}`,
        ianaTimezone: state.timeZones.get(shop) ?? 'America/New_York',
        contactEmail: `hello@${shop.split('.')[0]}.example.com`,
      },
    });
  return { status: 200, body: { errors: [{ message: 'The Shopify sandbox does not know this operation.' }] } };
}

/** The next failure a test asked for (`failGraphql`), on either API, as Shopify answers it. */
function injectedFailure(state: ShopifySandboxState): SandboxAnswer | null {
  const failure = state.graphqlFailures.shift();
  if (failure === undefined) return null;
  if (failure === 'throttled')
    return {
      status: 200,
      body: {
        errors: [
          {
            message: 'Throttled',
            extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
          },
        ],
      },
    };
  return { status: failure, body: { errors: 'Internal error' } };
}

function data(value: unknown): SandboxAnswer {
  return { status: 200, body: { data: value, extensions: { cost: { requestedQueryCost: 10, actualQueryCost: 10 } } } };
}

function subscriptionOf(state: ShopifySandboxState, shop: string, gid: string): SandboxSubscription | undefined {
  if (!gid.startsWith(SUBSCRIPTION_GID)) return undefined;
  const subscription = state.subscriptions.get(Number(gid.slice(SUBSCRIPTION_GID.length)));
  return subscription?.shop === shop ? subscription : undefined;
}

function subscriptionJson(subscription: SandboxSubscription) {
  return {
    id: `${SUBSCRIPTION_GID}${subscription.id}`,
    name: subscription.name,
    status: subscription.status,
    test: subscription.test,
    createdAt: subscription.createdAt.toISOString(),
    lineItems: [
      {
        id: subscription.lineItemId,
        plan: {
          pricingDetails: {
            __typename: 'AppUsagePricing',
            terms: subscription.terms,
            cappedAmount: subscription.cappedAmount,
          },
        },
      },
    ],
  };
}

function userErrors(field: string[] | null, message: string) {
  return [{ field, message }];
}

function createSubscription(
  state: ShopifySandboxState,
  shop: string,
  variables: Record<string, unknown>,
  publicUrl: string,
) {
  const lineItems = (variables.lineItems ?? []) as Array<{
    plan?: {
      appUsagePricingDetails?: { terms?: string; cappedAmount?: { amount?: string | number; currencyCode?: string } };
    };
  }>;
  const usage = lineItems[0]?.plan?.appUsagePricingDetails;
  const capped = String(usage?.cappedAmount?.amount ?? '');
  const none = { appSubscription: null, confirmationUrl: null };
  if (typeof variables.name !== 'string' || !variables.name)
    return { ...none, userErrors: userErrors(['name'], "Name can't be blank") };
  if (typeof variables.returnUrl !== 'string' || !/^https?:\/\//.test(variables.returnUrl))
    return { ...none, userErrors: userErrors(['returnUrl'], 'Return url is invalid') };
  if (!usage || !usage.terms || !(decimalCents(capped) > 0))
    return { ...none, userErrors: userErrors(['lineItems'], 'Capped amount must be greater than 0') };
  const id = state.newId();
  const subscription: SandboxSubscription = {
    id,
    shop,
    name: variables.name,
    returnUrl: variables.returnUrl,
    test: variables.test === true,
    status: 'PENDING',
    terms: usage.terms,
    cappedAmount: { amount: capped, currencyCode: usage.cappedAmount?.currencyCode ?? 'USD' },
    lineItemId: `gid://shopify/AppSubscriptionLineItem/${id}?v=1&index=0`,
    createdAt: new Date(),
  };
  state.subscriptions.set(id, subscription);
  return {
    appSubscription: subscriptionJson(subscription),
    confirmationUrl: `${publicUrl}/billing/approve?${new URLSearchParams({ shop, subscription: String(id) })}`,
    userErrors: [],
  };
}

function createUsageRecord(state: ShopifySandboxState, shop: string, variables: Record<string, unknown>) {
  const lineItemId = String(variables.subscriptionLineItemId ?? '');
  const price = (variables.price ?? {}) as { amount?: string | number; currencyCode?: string };
  const amount = String(price.amount ?? '');
  const idempotencyKey = typeof variables.idempotencyKey === 'string' ? variables.idempotencyKey : null;
  const none = { appUsageRecord: null };
  const subscription = [...state.subscriptions.values()].find((s) => s.shop === shop && s.lineItemId === lineItemId);
  if (!subscription)
    return { ...none, userErrors: userErrors(['subscriptionLineItemId'], 'Subscription line item not found') };
  // Same key, same record: Shopify answers a repeated idempotency key with the record it made. Only
  // on the same subscription: Shopify does not say a key reaches across plans, so the sandbox
  // assumes it does not (a key sent again on a new plan makes a second record).
  const earlier = idempotencyKey
    ? state.usageRecords.find((r) => r.subscriptionId === subscription.id && r.idempotencyKey === idempotencyKey)
    : undefined;
  if (earlier) return { appUsageRecord: { id: earlier.id }, userErrors: [] };
  if (subscription.status !== 'ACTIVE')
    return { ...none, userErrors: userErrors(null, 'The app subscription is not active') };
  if (idempotencyKey !== null && idempotencyKey.length > 255)
    return {
      ...none,
      userErrors: userErrors(['idempotencyKey'], 'Idempotency key is too long (maximum is 255 characters)'),
    };
  const cents = decimalCents(amount);
  if (!(cents > 0)) return { ...none, userErrors: userErrors(['price'], 'Price must be greater than 0') };
  if (price.currencyCode !== subscription.cappedAmount.currencyCode)
    return { ...none, userErrors: userErrors(['price'], 'Currency must match the capped amount currency') };
  if (state.balanceUsedCents(subscription.id) + cents > decimalCents(subscription.cappedAmount.amount))
    return { ...none, userErrors: userErrors(null, CAP_EXCEEDED) };
  const record = {
    id: `gid://shopify/AppUsageRecord/${state.newId()}`,
    shop,
    subscriptionId: subscription.id,
    lineItemId,
    amount,
    currencyCode: price.currencyCode,
    description: String(variables.description ?? ''),
    idempotencyKey,
    createdAt: new Date(),
  };
  state.usageRecords.push(record);
  return { appUsageRecord: { id: record.id }, userErrors: [] };
}

/** Each shop's Online Store publication: one per shop, as Shopify has. */
function onlineStorePublication(shop: string): string {
  return `gid://shopify/Publication/${[...shop].reduce((sum, c) => sum + c.charCodeAt(0), 0)}`;
}

/**
 * `productSet` as the app calls it (synchronous, upserting by handle): one product with one variant,
 * refused as Shopify does when the title or a price is missing or not money.
 */
function setProduct(state: ShopifySandboxState, shop: string, variables: Record<string, unknown>) {
  const input = (variables.input ?? {}) as {
    title?: string;
    handle?: string;
    status?: string;
    variants?: Array<{ price?: string; inventoryItem?: { requiresShipping?: boolean } }>;
  };
  const handle = (variables.identifier as { handle?: string } | undefined)?.handle ?? input.handle;
  const none = { product: null };
  if (!input.title)
    return { ...none, userErrors: [{ field: ['input', 'title'], message: "Title can't be blank", code: 'BLANK' }] };
  const variants = input.variants ?? [];
  if (variants.length === 0 || variants.some((v) => !/^\d+(\.\d{1,2})?$/.test(String(v.price ?? ''))))
    return {
      ...none,
      userErrors: [{ field: ['input', 'variants', '0', 'price'], message: 'Price is invalid', code: 'INVALID' }],
    };
  const existing = [...state.products.values()].find(
    (p) => p.shop === shop && handle !== undefined && p.handle === handle,
  );
  const id = existing?.id ?? state.newId();
  const product: SandboxProduct = {
    id,
    shop,
    title: input.title,
    handle: handle ?? `product-${id}`,
    status: input.status ?? 'DRAFT',
    price: String(variants[0]!.price),
    requiresShipping: variants[0]!.inventoryItem?.requiresShipping ?? true,
    publications: existing?.publications ?? [],
  };
  state.products.set(id, product);
  return {
    product: {
      id: `gid://shopify/Product/${id}`,
      title: product.title,
      variants: { nodes: [{ id: `gid://shopify/ProductVariant/${id}`, price: product.price }] },
    },
    userErrors: [],
  };
}

function publish(state: ShopifySandboxState, shop: string, variables: Record<string, unknown>) {
  const gid = String(variables.id ?? '');
  const product = state.products.get(Number(gid.replace('gid://shopify/Product/', '')));
  if (!product || product.shop !== shop) return { userErrors: [{ field: ['id'], message: 'Product does not exist' }] };
  const inputs = (variables.input ?? []) as Array<{ publicationId?: string }>;
  for (const { publicationId } of inputs) {
    if (publicationId !== onlineStorePublication(shop))
      return { userErrors: [{ field: ['input', 'publicationId'], message: 'Publication does not exist' }] };
    if (!product.publications.includes(publicationId)) product.publications.push(publicationId);
  }
  return { userErrors: [] };
}
