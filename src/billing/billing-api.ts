import { ServiceUnavailableError } from '../errors.ts';
import { adminGraphql, shopifyUnavailable } from '../shopify/admin-api.ts';
import type { ShopifyLibrary } from '../shopify/library.ts';
import { BILLING_CURRENCY, centsToDecimal, type UsageRecordAnswer } from './usage-charges.ts';

/**
 * Shopify's Billing API through the library's Admin GraphQL client
 * (https://shopify.dev/docs/apps/launch/billing/subscription-billing/create-usage-based-subscriptions).
 * Transport failures (network, 5xx, throttling) throw ServiceUnavailableError (503 in a response,
 * a retry in a job); userErrors are returned.
 */

export interface CreatedSubscription {
  id: string;
  lineItemId: string;
  status: string;
  confirmationUrl: string;
}

/** Shopify answered without what it must answer: unexpected, so treated as "try again later". */
export class ShopifyBillingError extends ServiceUnavailableError {
  override name = 'ShopifyBillingError';
}

const CREATE_SUBSCRIPTION = `mutation DoorstepSubscriptionCreate($name: String!, $returnUrl: URL!, $test: Boolean, $lineItems: [AppSubscriptionLineItemInput!]!) {
  appSubscriptionCreate(name: $name, returnUrl: $returnUrl, test: $test, lineItems: $lineItems) {
    appSubscription { id status lineItems { id plan { pricingDetails { __typename } } } }
    confirmationUrl
    userErrors { field message }
  }
}`;

interface UserError {
  field: string[] | null;
  message: string;
}

export async function createUsageSubscription(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
  plan: { name: string; returnUrl: string; test: boolean; terms: string; cappedAmountCents: number },
): Promise<CreatedSubscription> {
  const response = await ask('to create the subscription', () =>
    adminGraphql(shopify, accessToken, domain).request<{
      appSubscriptionCreate: {
        appSubscription: {
          id: string;
          status: string;
          lineItems: Array<{ id: string; plan: { pricingDetails: { __typename: string } } }>;
        } | null;
        confirmationUrl: string | null;
        userErrors: UserError[];
      };
    }>(CREATE_SUBSCRIPTION, {
      variables: {
        name: plan.name,
        returnUrl: plan.returnUrl,
        test: plan.test,
        lineItems: [
          {
            plan: {
              appUsagePricingDetails: {
                terms: plan.terms,
                cappedAmount: { amount: centsToDecimal(plan.cappedAmountCents), currencyCode: BILLING_CURRENCY },
              },
            },
          },
        ],
      },
    }),
  );
  const payload = response.data?.appSubscriptionCreate;
  const subscription = payload?.appSubscription;
  const usageLine = subscription?.lineItems.find((line) => line.plan.pricingDetails.__typename === 'AppUsagePricing');
  if (!payload || !subscription || !usageLine || !payload.confirmationUrl)
    throw new ShopifyBillingError(
      `Shopify did not create the subscription: ${payload?.userErrors.map((e) => e.message).join('; ') || 'no subscription in the answer'}`,
    );
  return {
    id: subscription.id,
    lineItemId: usageLine.id,
    status: subscription.status,
    confirmationUrl: payload.confirmationUrl,
  };
}

const SUBSCRIPTION_STATUS = `query DoorstepSubscriptionStatus($id: ID!) {
  node(id: $id) { ... on AppSubscription { id status } }
}`;

/** The subscription's current status as Shopify knows it; null when Shopify does not know the id. */
export async function fetchSubscriptionStatus(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
  subscriptionId: string,
): Promise<string | null> {
  const response = await ask('to read the subscription', () =>
    adminGraphql(shopify, accessToken, domain).request<{
      node: { id: string; status: string } | null;
    }>(SUBSCRIPTION_STATUS, { variables: { id: subscriptionId } }),
  );
  return response.data?.node?.status ?? null;
}

const CREATE_USAGE_RECORD = `mutation DoorstepUsageRecordCreate($subscriptionLineItemId: ID!, $price: MoneyInput!, $description: String!, $idempotencyKey: String) {
  appUsageRecordCreate(subscriptionLineItemId: $subscriptionLineItemId, price: $price, description: $description, idempotencyKey: $idempotencyKey) {
    appUsageRecord { id }
    userErrors { field message }
  }
}`;

/**
 * One usage record. The idempotency key is the order id: Shopify answers a repeated key with the
 * record it already made, so a retried job never charges twice.
 */
export async function createUsageRecord(
  shopify: ShopifyLibrary,
  accessToken: string,
  domain: string,
  record: { lineItemId: string; amountCents: number; description: string; idempotencyKey: string },
): Promise<UsageRecordAnswer> {
  const response = await ask('to record the usage charge', () =>
    adminGraphql(shopify, accessToken, domain).request<{
      appUsageRecordCreate: { appUsageRecord: { id: string } | null; userErrors: UserError[] };
    }>(CREATE_USAGE_RECORD, {
      variables: {
        subscriptionLineItemId: record.lineItemId,
        price: { amount: centsToDecimal(record.amountCents), currencyCode: BILLING_CURRENCY },
        description: record.description,
        idempotencyKey: record.idempotencyKey,
      },
    }),
  );
  const payload = response.data?.appUsageRecordCreate;
  if (payload?.appUsageRecord) return { usageRecordId: payload.appUsageRecord.id };
  if (payload && payload.userErrors.length > 0) return { userErrors: payload.userErrors.map((e) => e.message) };
  throw new ShopifyBillingError('Shopify answered appUsageRecordCreate with neither a record nor userErrors.');
}

/** A call to Shopify whose library failures become ServiceUnavailableError ("try again later"). */
async function ask<T>(doing: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw shopifyUnavailable(error, doing);
  }
}
