import { z } from 'zod';
import { ConflictError, ServiceUnavailableError, ValidationError } from '../../../errors.ts';
import { parseBody } from '../../../validation.ts';
import { adminGraphql, shopifyUnavailable } from '../../admin-api.ts';
import type { ShopifyServices } from '../../services.ts';
import { updateShopSettings, type ShopRow } from '../../shops.ts';

/**
 * Setup step 2's one button (issue 28): the "Video message" add-on product, made in the shop through
 * the Admin API, published to the Online Store (the storefront block adds it to the cart there), and
 * chosen as the shop's video product. Needs `write_products` and `write_publications`.
 */

/**
 * The product's handle: `productSet` upserts by it, so a second press (or a retry after a lost
 * answer) updates the one product instead of making another.
 */
export const VIDEO_PRODUCT_HANDLE = 'doorstep-video-message';

/** What the button sends: the price in the shop's currency, as Shopify writes money ("5.00"). */
export const videoProductRequestSchema = z.strictObject({
  price: z
    .string({ error: 'must be an amount such as "5.00"' })
    .trim()
    // "5,50" as stores that write a decimal comma type it (storefront probe: refused).
    .transform((price) => (/^\d{1,6},\d{1,2}$/.test(price) ? price.replace(',', '.') : price))
    .pipe(
      z
        .string()
        .regex(/^\d{1,6}(\.\d{1,2})?$/, 'must be an amount such as "5.00"')
        .refine((price) => Number(price) > 0, 'must be more than 0'),
    ),
});

export interface VideoProduct {
  /** Shopify's numeric id, as `shops.video_product_ids` keeps it. */
  productId: string;
  title: string;
  price: string;
}

const PRODUCT_SET = `mutation DoorstepVideoProduct($identifier: ProductSetIdentifiers, $input: ProductSetInput!) {
  productSet(identifier: $identifier, input: $input, synchronous: true) {
    product { id title variants(first: 1) { nodes { id price } } }
    userErrors { field message code }
  }
}`;

const ONLINE_STORE = `query DoorstepOnlineStore {
  appByHandle(handle: "online_store") { installation { publication { id } } }
}`;

const PUBLISH = `mutation DoorstepPublishVideoProduct($id: ID!, $input: [PublicationInput!]!) {
  publishablePublish(id: $id, input: $input) { userErrors { field message } }
}`;

/** One product, one variant, no shipping and no stock to count: a message, not a parcel. */
export function videoProductInput(price: string) {
  return {
    title: 'Video message',
    handle: VIDEO_PRODUCT_HANDLE,
    status: 'ACTIVE',
    productType: 'Gift add-on',
    descriptionHtml:
      '<p>Record a video for the person you are buying for. They receive it by e-mail or text the moment the gift is delivered.</p>',
    productOptions: [{ name: 'Title', values: [{ name: 'Default Title' }] }],
    variants: [
      {
        optionValues: [{ optionName: 'Title', name: 'Default Title' }],
        price,
        inventoryPolicy: 'CONTINUE',
        inventoryItem: { requiresShipping: false, tracked: false },
      },
    ],
  };
}

/** `POST /shopify/api/video-product`: makes (or updates) the add-on and chooses it in the shop's settings. */
export async function createVideoProduct(
  shopify: ShopifyServices,
  shop: ShopRow,
  body: unknown,
): Promise<VideoProduct> {
  const { price } = parseBody(videoProductRequestSchema, body, 'video product');
  const client = adminGraphql(shopify.library, await shopify.tokens.accessToken(shop.domain), shop.domain);
  const call = async <T>(query: string, variables?: Record<string, unknown>): Promise<T> => {
    try {
      const response = await client.request<T>(query, variables ? { variables } : {});
      return response.data as T;
    } catch (error) {
      if (/access denied|ACCESS_DENIED|write_products|write_publications/i.test(String(error)))
        throw new ConflictError(
          'Doorstep needs permission to create products in your store: open Doorstep from your Shopify admin to accept the updated permissions, then try again.',
        );
      throw shopifyUnavailable(error, 'to create the “Video message” product');
    }
  };

  const made = await call<{
    productSet: {
      product: { id: string; title: string; variants: { nodes: Array<{ id: string; price: string }> } } | null;
      userErrors: Array<{ field: string[] | null; message: string }>;
    };
  }>(PRODUCT_SET, { identifier: { handle: VIDEO_PRODUCT_HANDLE }, input: videoProductInput(price) });
  const product = made.productSet.product;
  if (made.productSet.userErrors.length > 0 || !product)
    throw new ValidationError(
      `Shopify did not create the product: ${made.productSet.userErrors.map((e) => e.message).join('; ') || 'no product came back'}.`,
    );

  const store = await call<{ appByHandle: { installation: { publication: { id: string } | null } | null } | null }>(
    ONLINE_STORE,
  );
  const publicationId = store.appByHandle?.installation?.publication?.id;
  if (!publicationId)
    throw new ServiceUnavailableError(
      'The product was created, but your store has no Online Store channel to publish it to: publish it from Products in your Shopify admin.',
    );
  const published = await call<{ publishablePublish: { userErrors: Array<{ message: string }> } }>(PUBLISH, {
    id: product.id,
    input: [{ publicationId }],
  });
  if (published.publishablePublish.userErrors.length > 0)
    throw new ValidationError(
      `The product was created, but Shopify did not publish it: ${published.publishablePublish.userErrors.map((e) => e.message).join('; ')}.`,
    );

  const productId = product.id.split('/').pop()!;
  if (!shop.video_product_ids.includes(productId))
    await updateShopSettings(
      shopify.deps.db,
      shop.domain,
      { video_product_ids: [...shop.video_product_ids, productId] },
      (shopify.deps.now ?? (() => new Date()))(),
    );
  shopify.deps.logger.info({ shop: shop.domain, productId }, 'made the video message product');
  return { productId, title: product.title, price: product.variants.nodes[0]?.price ?? price };
}
