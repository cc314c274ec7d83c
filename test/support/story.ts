import fs from 'node:fs';
import path from 'node:path';
import { runCli } from './processes.ts';
import { eventually } from './workers.ts';

/** A store's API, as a client over real HTTP with its own Basic credentials. */
export interface StoreClient {
  api(
    method: string,
    url: string,
    body?: unknown,
    contentType?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
}

/**
 * Creates an API account with the CLI, the way an operator does: against the server's admin socket
 * on the embedded database (`dataDir`), or straight in PostgreSQL when the environment's
 * DATABASE_URL is set (the `npm run test:postgres` run).
 */
export async function createStore(base: string, env: Record<string, string>): Promise<StoreClient> {
  const created = await runCli(['accounts', 'create', '--name', 'Process test store', '--json'], env);
  if (created.code !== 0) throw new Error(`cli accounts create failed: ${created.stderr}`);
  const { app_id, api_key } = JSON.parse(created.stdout) as { app_id: string; api_key: string };
  const auth = `Basic ${Buffer.from(`${app_id}:${api_key}`).toString('base64')}`;
  return {
    async api(method, url, body, contentType = 'application/json', headers = {}) {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': contentType } : {}), ...headers },
        ...(body !== undefined ? { body: Buffer.isBuffer(body) ? body : JSON.stringify(body) } : {}),
        // A request that hangs is a failure of its own, not a test that runs until its timeout.
        signal: AbortSignal.timeout(30_000),
      });
      return {
        status: response.status,
        body: (response.status === 204 ? {} : await response.json()) as Record<string, unknown>,
        headers: response.headers,
      };
    },
  };
}

/** The sample recording every story uploads (a real MediaRecorder WebM, about 2 s). */
export const sampleVideo = () =>
  fs.readFileSync(path.join(import.meta.dirname, '../videos/fixtures/recorded-vp8-opus.webm'));

/**
 * One gift through the API up to the carrier's delivery: order → real video upload (processed by
 * the workers) → UPS tracking number → the carrier sandbox reports it delivered. What follows (the
 * recipient's e-mail) is the caller's to watch.
 */
export async function deliverOneOrder(
  base: string,
  store: StoreClient,
  recipientEmail: string,
  trackingNumber = '1Z5R89390357567127',
): Promise<{ id: string; playback_url: string }> {
  const created = await store.api('POST', '/v1/orders', {
    name: 'Ann',
    email: 'ann@example.com',
    recipient_name: 'Bob',
    recipient_email: recipientEmail,
  });
  if (created.status !== 201 && created.status !== 200) throw new Error(`create order: ${JSON.stringify(created)}`);
  const order = created.body as { id: string; playback_url: string };
  const upload = await store.api('PUT', `/v1/orders/${order.id}/video`, sampleVideo(), 'video/webm');
  if (upload.status !== 200) throw new Error(`upload: ${JSON.stringify(upload)}`);
  await eventually(
    async () => ((await store.api('GET', `/v1/orders/${order.id}`)).body.video_processed === '1' ? true : undefined),
    30_000,
    'video processing',
  );
  const shipped = await store.api('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: trackingNumber });
  if (shipped.status !== 200) throw new Error(`tracking number: ${JSON.stringify(shipped)}`);
  const delivered = await fetch(`${base}/sandbox/carriers/ups/packages/${trackingNumber}/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivered' }),
  });
  if (!delivered.ok) throw new Error(`sandbox delivery: ${delivered.status} ${await delivered.text()}`);
  return order;
}
