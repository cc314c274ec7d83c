import type { Db } from '../../../db/database.ts';
import { ConflictError, ServiceUnavailableError } from '../../../errors.ts';
import type { OrderRow } from '../../../orders/serializer.ts';
import type { OrderService } from '../../../orders/service.ts';
import { sampleVideo } from '../../../videos/sample-video.ts';
import type { VideoService } from '../../../videos/service.ts';
import { fetchProductTemplate, fetchShopEmail } from '../../admin-api.ts';
import type { ShopifyServices } from '../../services.ts';
import { shopLinks } from '../shop-links.ts';
import type { ShopRow } from '../../shops.ts';
import { setupSteps, type SetupState } from './steps.ts';
import { appBlockActive, themeEditorLink } from './theme-block.ts';

export interface SetupDeps {
  shopify: ShopifyServices;
  orders: OrderService;
  videos: VideoService;
  /** Billing's answer: has the shop approved its plan? */
  planActive: (domain: string) => Promise<boolean>;
}

/** How long the test gift's sample video is: a few seconds of test pattern. */
const SAMPLE_SECONDS = 4;

/** `GET /shopify/api/setup`: the setup guide's steps, each from the shop's real state. */
export async function setupGuide(deps: SetupDeps, shop: ShopRow) {
  const [themeBlock, planActive, testGiftSent] = await Promise.all([
    themeBlockState(deps.shopify, shop.domain),
    deps.planActive(shop.domain),
    hasTestGift(deps.shopify.deps.db, shop.domain),
  ]);
  const state: SetupState = {
    themeBlock,
    themeEditorUrl: themeEditorLink(
      shopLinks(deps.shopify.config, shop.domain).admin,
      deps.shopify.config.themeExtensionId,
    ),
    productChosen: shop.video_product_ids.length > 0,
    planActive,
    testGiftSent,
  };
  return setupSteps(state);
}

async function themeBlockState(shopify: ShopifyServices, domain: string): Promise<SetupState['themeBlock']> {
  try {
    const token = await shopify.tokens.accessToken(domain);
    const template = await fetchProductTemplate(shopify.library, token, domain);
    return template !== null && appBlockActive(template) ? 'active' : 'missing';
  } catch (error) {
    // A token granted before Doorstep asked for read_themes, or Shopify down: the step stays open.
    shopify.deps.logger.warn({ err: error, shop: domain }, 'could not read the theme for the setup guide');
    return 'unknown';
  }
}

async function hasTestGift(db: Db, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('shopify_test_gifts')
    .select('order_id')
    .where('shop', '=', domain)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * "Send a test gift to yourself" (setup step 4): a video order to the shop's own e-mail address,
 * with a sample video, sent at once — the e-mail, the watch page and the thank-you, as a recipient
 * gets them. It has no price and no Shopify order, so it is never billed, and it is recorded as the
 * shop's test gift (`shopify_test_gifts`).
 */
export async function sendTestGift(deps: SetupDeps, shop: ShopRow, shopName: string): Promise<OrderRow> {
  const { shopify } = deps;
  let email: string | null;
  try {
    email = await fetchShopEmail(shopify.library, await shopify.tokens.accessToken(shop.domain), shop.domain);
  } catch (error) {
    throw new ServiceUnavailableError(
      'Shopify could not be asked for your store’s e-mail address; try again in a moment.',
      {
        cause: error,
      },
    );
  }
  if (!email)
    throw new ServiceUnavailableError('Your store has no e-mail address in Shopify to send the test gift to.');
  const { order } = await deps.orders.create(
    shop.account_id,
    {
      name: shopName,
      email,
      recipient_name: shopName,
      recipient_email: email,
      send_method: 'email',
      send_trigger: 'now',
      video_title: 'Test gift',
      price: null,
    },
    {
      source: 'admin',
      alongside: async (trx, created) => {
        await refuseTestGiftOnItsWay(trx, shop.domain, created.created_at);
        await trx
          .insertInto('shopify_test_gifts')
          .values({ shop: shop.domain, order_id: created.id, created_at: created.created_at })
          .execute();
      },
    },
  );
  // The sample video, processed like any upload; the order sends once it is ready ("now").
  await deps.videos.upload(order, {
    contentType: 'video/mp4',
    body: await sampleVideo(SAMPLE_SECONDS),
    source: 'admin',
  });
  return order;
}

/** How long a test gift not sent yet counts as on its way (a stuck one does not block another). */
const TEST_GIFT_ON_ITS_WAY_MS = 10 * 60_000;

/**
 * The setup step is one action: a second press (a double click, a second tab) while the first test
 * gift is still on its way is a 409, not a second e-mail (billing probe: three presses, three gifts).
 * The shop's row is locked first, so two presses at once are taken one after the other.
 */
async function refuseTestGiftOnItsWay(trx: Db, shop: string, now: Date): Promise<void> {
  await trx.selectFrom('shops').select('domain').where('domain', '=', shop).forUpdate().executeTakeFirst();
  const onItsWay = await trx
    .selectFrom('shopify_test_gifts')
    .innerJoin('orders', 'orders.id', 'shopify_test_gifts.order_id')
    .select('orders.recipient_email')
    .where('shopify_test_gifts.shop', '=', shop)
    .where('orders.sent_at', 'is', null)
    .where('orders.status', '!=', 'cancelled')
    .where('orders.deleted_at', 'is', null)
    .where('shopify_test_gifts.created_at', '>', new Date(now.getTime() - TEST_GIFT_ON_ITS_WAY_MS))
    .executeTakeFirst();
  if (onItsWay)
    throw new ConflictError(
      `A test gift is already on its way to ${onItsWay.recipient_email ?? 'your store’s e-mail address'}; it arrives in a minute or two.`,
    );
}
