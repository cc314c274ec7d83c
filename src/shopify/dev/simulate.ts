import { sampleVideo } from '../../videos/sample-video.ts';
import { mapTrackingCompany } from '../orders/carrier-names.ts';
import {
  fakeShopifyId,
  fulfillmentPayload,
  orderPayload,
  randomUpsTrackingNumber,
  signedWebhook,
} from './webhook-payloads.ts';
import { oneRequestUploadHeaders } from '../../videos/uploads/resumable-uploads.ts';

export interface SimulateOptions {
  shop: string;
  publicUrl: string;
  apiSecret: string;
  carrierCompany: string;
  trackingNumber?: string | undefined;
  /**
   * The video sold as its own add-on product (not shipped) next to a shipped gift, as the storefront
   * block sells it: the fulfillment carries only the gift.
   */
  addOn?: boolean | undefined;
  /** Reads the Shopify order's video orders (through the admin socket or the database). */
  videoOrders: (shopifyOrderId: string) => Promise<
    Array<{
      order: { id: string; status: string; carrier: string | null; tracking_number: string | null } & Record<
        string,
        unknown
      >;
      notice: string | null;
    }>
  >;
  log: (line: string) => void;
  timeoutMs?: number;
}

/**
 * `npm run cli -- shopify simulate <shop>`: a whole store story against a running app — an order with
 * a video line item (or, with `--add-on`, a video add-on next to a shipped gift), a fulfillment with
 * tracking, delivery — signed with the app's secret exactly as Shopify would send it.
 */
export async function simulateStore(options: SimulateOptions): Promise<Record<string, unknown>> {
  const { shop, publicUrl, apiSecret, log } = options;
  const post = async (topic: string, payload: unknown) => {
    const webhook = signedWebhook(apiSecret, shop, topic, payload);
    const response = await fetch(`${publicUrl}/shopify/webhooks`, {
      method: 'POST',
      headers: webhook.headers,
      body: webhook.body,
    });
    log(`→ ${topic} (webhook ${webhook.webhookId}): HTTP ${response.status}`);
    if (response.status !== 200)
      throw new Error(`The app answered ${response.status} to ${topic}: ${await response.text()}`);
  };
  const waitFor = async <T>(what: string, check: () => Promise<T | undefined>): Promise<T> => {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      const value = await check();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`Timed out waiting for ${what}. See: npm run cli -- webhooks list`);
  };

  const orderId = fakeShopifyId();
  const videoLineId = fakeShopifyId();
  const message = { recipientName: 'Bob Recipient', recipientEmail: 'bob.recipient@example.com', price: '12.00' };
  // The line the fulfillment carries: the video line itself, or the gift next to the add-on.
  const shippedLineId = options.addOn ? fakeShopifyId() : videoLineId;
  await post(
    'orders/create',
    orderPayload({
      id: orderId,
      // As Shopify sends it: on the shop's own host, so the payload names its shop (no Admin API look-up).
      orderStatusUrl: `https://${shop}/1/orders/${orderId}/authenticate?key=simulated`,
      lines: options.addOn
        ? [
            { id: shippedLineId, marker: false, title: 'Scented candle', price: '42.00', giftKey: 'simulated-gift' },
            { id: videoLineId, ...message, requiresShipping: false, giftKey: 'simulated-gift' },
          ]
        : [{ id: videoLineId, ...message }],
    }),
  );
  if (options.addOn) log('  the video message is a non-shipping add-on next to a shipped gift');
  const created = await waitFor('the video order', async () => (await options.videoOrders(String(orderId)))[0]);
  log(
    `  video order ${created.order.id} created (${created.order.status}); record_url ${String(created.order.record_url)}`,
  );

  // The shopper records: a small generated MP4 through the record page's own (resumable) upload endpoint, in one request.
  // (Built from the app's address, as PUBLIC_URL may name a host this machine cannot resolve.)
  const video = await sampleVideo(4.2);
  const upload = await fetch(`${publicUrl}/record/${String(created.order.uuid)}/uploads`, {
    method: 'POST',
    headers: oneRequestUploadHeaders(video.length, 'video/mp4'),
    body: video,
  });
  if (upload.status !== 201)
    throw new Error(`The record page refused the video: ${upload.status} ${await upload.text()}`);
  await waitFor('the video to be processed', async () =>
    (await options.videoOrders(String(orderId)))[0]?.order.video_processed === '1' ? true : undefined,
  );
  log(`→ shopper recorded a 4.2 s video on the record page`);

  const fulfillmentId = fakeShopifyId();
  const trackable = mapTrackingCompany(options.carrierCompany, options.trackingNumber ?? null);
  if (!options.trackingNumber && trackable.carrier !== null && trackable.carrier !== 'ups') {
    throw new Error(
      `Pass --tracking-number for "${options.carrierCompany}" (numbers are generated for UPS and for carriers Doorstep does not track).`,
    );
  }
  // Unsupported carriers get a number that matches no UPS/FedEx/USPS format (like Canada Post's 16 digits, prefixed).
  const trackingNumber =
    options.trackingNumber ?? (trackable.carrier === 'ups' ? randomUpsTrackingNumber() : `CP${Date.now()}`);
  const shippedAt = new Date();
  await post(
    'fulfillments/create',
    fulfillmentPayload({
      id: fulfillmentId,
      orderId,
      lineItemIds: [shippedLineId],
      trackingCompany: options.carrierCompany,
      trackingNumber,
      createdAt: shippedAt.toISOString(),
      updatedAt: shippedAt.toISOString(),
    }),
  );
  const shipped = await waitFor('the fulfillment to reach the order', async () => {
    const [row] = await options.videoOrders(String(orderId));
    return row && (row.order.tracking_number !== null || row.notice !== null) ? row : undefined;
  });
  log(
    shipped.order.tracking_number
      ? `  tracking ${shipped.order.carrier} ${shipped.order.tracking_number}`
      : `  not trackable by carrier: ${shipped.notice}`,
  );

  if (shipped.order.carrier) {
    const response = await fetch(
      `${publicUrl}/sandbox/carriers/${shipped.order.carrier}/packages/${encodeURIComponent(shipped.order.tracking_number!)}/events`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'delivered' }),
      },
    );
    if (response.status !== 201)
      throw new Error(
        `The carrier sandbox answered ${response.status} (is ${shipped.order.carrier} running on the sandbox?): ${await response.text()}`,
      );
    log(
      `→ sandbox: ${shipped.order.carrier} reports ${shipped.order.tracking_number} delivered (the app's poller picks it up)`,
    );
  } else {
    const deliveredAt = new Date(shippedAt.getTime() + 1_000);
    await post(
      'fulfillments/update',
      fulfillmentPayload({
        id: fulfillmentId,
        orderId,
        lineItemIds: [shippedLineId],
        trackingCompany: options.carrierCompany,
        trackingNumber,
        shipmentStatus: 'delivered',
        createdAt: shippedAt.toISOString(),
        updatedAt: deliveredAt.toISOString(),
      }),
    );
  }
  const delivered = await waitFor('delivery', async () => {
    const [row] = await options.videoOrders(String(orderId));
    return row?.order.status === 'delivered' ? row : undefined;
  });
  log(`  delivered: ${delivered.order.id}`);
  const sent = await waitFor('the recipient notification', async () => {
    const [row] = await options.videoOrders(String(orderId));
    return row?.order.sent_at ? row : undefined;
  });
  log(`  recipient notified at ${String(sent.order.sent_at)} (e-mail in DATA_DIR/outbox unless SMTP_URL is set)`);
  return sent.order;
}
