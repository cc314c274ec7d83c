import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { validateTrackingNumber } from '../../src/carriers/tracking-number.ts';
import { DEVELOPMENT_API_SECRET } from '../../src/shopify/config.ts';
import {
  fakeShopifyId,
  fulfillmentPayload,
  orderPayload,
  randomUpsTrackingNumber,
  signedWebhook,
} from '../../src/shopify/dev/webhook-payloads.ts';
import { projectRoot, runCli } from '../../test/support/processes.ts';
import { eventually } from '../../test/support/workers.ts';
import type { SoakClient } from './client.ts';
import type { ExpectedOrder, StoryKind } from './verdict.ts';
import { oneRequestUploadHeaders } from '../../src/videos/uploads/resumable-uploads.ts';

/**
 * The soak's traffic: whole gift stories, one after another on each of `concurrency` loops, in a
 * fixed rotation of kinds so every run covers both tracking modes, both channels and both ways in
 * (the API and signed Shopify webhooks). An order joins `expected` only once its story has done
 * everything that should end in a send.
 */
export const STORY_KINDS: StoryKind[] = [
  'api custom tracking, e-mail',
  'api FedEx (polled), SMS',
  'api UPS (pushed), e-mail + SMS',
  'shopify UPS',
  'shopify delivered by Shopify',
];

const video = fs.readFileSync(path.join(projectRoot, 'test/videos/fixtures/recorded-vp8-opus.webm'));

export interface Traffic {
  expected: ExpectedOrder[];
  storyFailures: string[];
  webhooks: { sent: number; redelivered: number; duplicateAnswers: number };
}

export async function prepareTraffic(env: Record<string, string>): Promise<{ auth: string; shop: string }> {
  const created = await runCli(['accounts', 'create', '--name', 'Soak store', '--json'], env);
  if (created.code !== 0) throw new Error(`cli accounts create failed: ${created.stderr}`);
  const { app_id, api_key } = JSON.parse(created.stdout) as { app_id: string; api_key: string };
  // A dev shop "as if installed": no Shopify needed, webhooks signed with the development secret.
  const shop = `soak-${process.pid}.myshopify.com`;
  const added = await runCli(['shops', 'add', shop, '--json'], env);
  if (added.code !== 0) throw new Error(`cli shops add failed: ${added.stderr}`);
  return { auth: `Basic ${Buffer.from(`${app_id}:${api_key}`).toString('base64')}`, shop };
}

export async function runTraffic(options: {
  base: string;
  auth: string;
  shop: string;
  db: pg.Pool;
  client: SoakClient;
  concurrency: number;
  stopped: () => boolean;
}): Promise<Traffic> {
  const { base, auth, shop, db, client } = options;
  const traffic: Traffic = {
    expected: [],
    storyFailures: [],
    webhooks: { sent: 0, redelivered: 0, duplicateAnswers: 0 },
  };
  const run = Date.now().toString(36);
  let sequence = 0;

  const api = (what: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    client.request(what, `${base}${url}`, {
      method,
      headers: {
        Authorization: auth,
        ...(Buffer.isBuffer(body) ? { 'Content-Type': 'video/webm' } : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
    });
  const sandboxEvent = (carrier: string, number: string, status: string) =>
    client.request(
      `sandbox ${status}`,
      `${base}/sandbox/carriers/${carrier}/packages/${number}/events`,
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status }) },
      (status) => status === 201,
    );
  const webhook = async (topic: string, payload: unknown, redeliver = false) => {
    const signed = signedWebhook(DEVELOPMENT_API_SECRET, shop, topic, payload);
    const post = () =>
      client.request(
        topic,
        `${base}/shopify/webhooks`,
        { method: 'POST', headers: signed.headers, body: signed.body },
        (status) => status === 200,
      );
    traffic.webhooks.sent++;
    await post();
    if (redeliver) {
      // Shopify redelivers when it misses our 200: the same webhook id must not act twice.
      traffic.webhooks.sent++;
      traffic.webhooks.redelivered++;
      if ((await post()).body['duplicate'] === true) traffic.webhooks.duplicateAnswers++;
    }
  };

  async function story(kind: StoryKind, n: number): Promise<void> {
    const tag = `${run}-${n}`;
    const sender = `sender-${tag}@soak.example`;
    const email = kind.includes('e-mail') || kind.startsWith('shopify') ? `recipient-${tag}@soak.example` : null;
    const phone = kind.includes('SMS') ? `+1555${String(n % 10_000_000).padStart(7, '0')}` : null;
    const names = { name: `Sender ${tag}`, recipient_name: `Recipient ${tag}` };

    if (kind.startsWith('api')) {
      const created = await api(
        'create order',
        'POST',
        '/v1/orders',
        {
          ...names,
          email: sender,
          recipient_email: email,
          recipient_phone: phone,
          send_method: email && phone ? 'email_and_sms' : email ? 'email' : 'sms',
        },
        // A retried POST (the first answer lost to an outage) must not make a second order.
        { 'Idempotency-Key': `soak-${tag}` },
      );
      const id = String(created.body['id']);
      await api('upload video', 'PUT', `/v1/orders/${id}/video`, video);
      if (kind === 'api custom tracking, e-mail') {
        await api('mark delivered', 'PUT', `/v1/orders/${id}`, { delivered: 1 });
      } else {
        const carrier = kind.includes('FedEx') ? 'fedex' : 'ups';
        const number = carrier === 'fedex' ? fedexTrackingNumber() : randomUpsTrackingNumber();
        await sandboxEvent(carrier, number, 'pre_transit');
        await api('tracking number', 'PUT', `/v1/orders/${id}`, { carrier, tracking_number: number });
        await sandboxEvent(carrier, number, 'delivered');
      }
      traffic.expected.push({ orderId: id, kind, email, phone, sender, senderMessages: 1 });
      return;
    }

    const shopifyOrderId = fakeShopifyId();
    const lineId = fakeShopifyId();
    await webhook(
      'orders/create',
      orderPayload({
        id: shopifyOrderId,
        email: sender,
        lines: [{ id: lineId, recipientName: names.recipient_name, recipientEmail: email!, price: '12.00' }],
      }),
      n % 3 === 0,
    );
    const order = await eventually(
      async () => {
        const { rows } = await db.query<{ id: string; uuid: string }>(
          'select o.id, o.uuid from shopify_order_links l join orders o on o.id = l.order_id where l.shop = $1 and l.shopify_order_id = $2',
          [shop, String(shopifyOrderId)],
        );
        return rows[0];
      },
      180_000,
      `the video order of Shopify order ${shopifyOrderId}`,
    );
    // The shopper records on the record page (its uuid is the key; no API credentials).
    // The page's resumable upload (tus), its whole video in one request (creation-with-upload).
    await client.request('record page upload', `${base}/record/${order.uuid}/uploads`, {
      method: 'POST',
      headers: oneRequestUploadHeaders(video.length, 'video/webm'),
      body: video,
    });
    const fulfillmentId = fakeShopifyId();
    const shippedAt = new Date().toISOString();
    const byShopify = kind === 'shopify delivered by Shopify';
    const number = byShopify ? `CP${tag}` : randomUpsTrackingNumber();
    if (!byShopify) await sandboxEvent('ups', number, 'pre_transit');
    const fulfillment = {
      id: fulfillmentId,
      orderId: shopifyOrderId,
      lineItemIds: [lineId],
      trackingCompany: byShopify ? 'Canada Post' : 'UPS',
      trackingNumber: number,
      createdAt: shippedAt,
    };
    await webhook('fulfillments/create', fulfillmentPayload({ ...fulfillment, updatedAt: shippedAt }));
    if (byShopify) {
      await webhook(
        'fulfillments/update',
        fulfillmentPayload({
          ...fulfillment,
          shipmentStatus: 'delivered',
          updatedAt: new Date(Date.now() + 1000).toISOString(),
        }),
      );
    } else {
      await sandboxEvent('ups', number, 'delivered');
    }
    // The shopper got the record link, and gets the "sent" note.
    traffic.expected.push({ orderId: order.id, kind, email, phone: null, sender, senderMessages: 2 });
  }

  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (!options.stopped()) {
        const n = sequence++;
        const kind = STORY_KINDS[n % STORY_KINDS.length]!;
        try {
          await story(kind, n);
        } catch (error) {
          traffic.storyFailures.push(`${kind} #${n}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }),
  );
  return traffic;
}

/** A FedEx 12-digit number with a correct check digit (a random stem and the digit found by trying). */
function fedexTrackingNumber(): string {
  for (;;) {
    const stem = `7${String(randomInt(0, 10_000_000_000)).padStart(10, '0')}`;
    for (let digit = 0; digit <= 9; digit++) {
      if (validateTrackingNumber('fedex', `${stem}${digit}`).valid) return `${stem}${digit}`;
    }
  }
}
