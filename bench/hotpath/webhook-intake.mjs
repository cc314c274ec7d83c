// Signed orders/create webhooks at POST /shopify/webhooks, each with its own webhook id, for
// `bench/hotpath/http.sh` (plain JS so it runs the same against any checkout). Usage:
//   node bench/hotpath/webhook-intake.mjs <base url> <seconds> <label>
// Signs with the development secret, which `npm start` uses when SHOPIFY_API_SECRET is unset.
import autocannon from 'autocannon';
import { createHmac, randomUUID } from 'node:crypto';
import process from 'node:process';

const [baseUrl, seconds = '10', label = ''] = process.argv.slice(2);
const secret = 'doorstep-development-api-secret';
const body = JSON.stringify({
  id: 820982911946154500,
  name: '#1001',
  email: 'ann@example.com',
  line_items: [{ id: 866550311766439000, product_id: 1, variant_id: 2, title: 'Video message', quantity: 1 }],
});
const signature = createHmac('sha256', secret).update(body, 'utf8').digest('base64');

const result = await autocannon({
  url: `${baseUrl}/shopify/webhooks`,
  connections: 10,
  duration: Number(seconds),
  requests: [
    {
      method: 'POST',
      setupRequest: (request) => ({
        ...request,
        body,
        headers: {
          'content-type': 'application/json',
          'x-shopify-topic': 'orders/create',
          'x-shopify-hmac-sha256': signature,
          'x-shopify-shop-domain': 'bench-shop.myshopify.com',
          'x-shopify-api-version': '2026-07',
          'x-shopify-webhook-id': randomUUID(),
          'x-shopify-triggered-at': new Date().toISOString(),
        },
      }),
    },
  ],
});
process.stdout.write(
  `${label} POST /shopify/webhooks req/s ${Math.round(result.requests.average)} p50 ${result.latency.p50} non2xx ${result.non2xx}\n`,
);
