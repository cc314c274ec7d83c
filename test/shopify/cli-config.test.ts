import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signedWebhook } from '../../src/shopify/dev/webhook-payloads.ts';
import { freePort, projectRoot } from '../support/processes.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify, type ShopifyTestApp } from './harness.ts';
import { sessionToken } from './session-token.ts';

/**
 * shopify.app.toml and shopify.web.toml as the Shopify CLI reads them, checked against the running
 * app: every URL the CLI would register must reach one of our routes. The rules below follow the
 * CLI's own source (Shopify/cli, main branch, read 2026-08):
 * - packages/app/src/cli/models/app/app.ts: AppSchema (`client_id`, `build`) and WebConfigurationSchema;
 * - packages/app/src/cli/models/extensions/specifications/app_config_{app_home,app_access,branding,
 *   point_of_sale,app_proxy,events}.ts and app_config_webhook_schemas/*: the other keys;
 * - services/context.ts `removeIncludeConfigOnDeployField`: `build.include_config_on_deploy` is no
 *   longer supported (the CLI deletes it from the file and warns).
 */
const appToml: unknown = parse(fs.readFileSync(path.join(projectRoot, 'shopify.app.toml'), 'utf8'));
const webTomlPath = path.join(projectRoot, 'shopify.web.toml');
const webToml: unknown = parse(fs.readFileSync(webTomlPath, 'utf8'));

// validation/common.ts `removeTrailingSlash`: applied to every webhook `uri` before anything else.
const removeTrailingSlash = (value: string) => value.replace(/\/+$/, '');

/**
 * A webhook subscription's `uri` as the CLI registers it: validation/url_prepender.ts
 * `prependApplicationUrl` (used by app_config_webhook_subscription.ts) and `relativeUri` in
 * app_config_privacy_compliance_webhooks.ts do the same thing — a `uri` starting with `/` is appended
 * to application_url (trailing slash removed) as plain text, any other `uri` is used as it is.
 */
function resolveWebhookUri(uri: string, applicationUrl: string): string {
  const trimmed = removeTrailingSlash(uri);
  return trimmed.startsWith('/') ? `${removeTrailingSlash(applicationUrl)}${trimmed}` : trimmed;
}

const isHttpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
// app/validation/common.ts `validateUrl`: a parseable http(s) URL (so never relative).
const url = z.string().refine(isHttpUrl, 'must be an absolute http(s) URL');
// validation/common.ts `WebhookSubscriptionUriValidation` (we use neither Pub/Sub, EventBridge nor Kafka).
const webhookUri = z.string().refine((uri) => uri.startsWith('/') || uri.startsWith('https://'), 'relative or https');
const complianceTopic = z.enum(['customers/data_request', 'customers/redact', 'shop/redact']);

const appConfigSchema = z
  .object({
    client_id: z.string().min(1),
    organization_id: z.string().optional(),
    name: z.string().max(30),
    handle: z
      .string()
      .regex(/^\w*(?!-)[_a-z0-9-]+(?<!-)$/)
      .optional(),
    application_url: url,
    embedded: z.boolean(),
    app_preferences: z.object({ url }).optional(),
    build: z
      .object({ automatically_update_urls_on_dev: z.boolean().optional(), dev_store_url: z.string().optional() })
      .strict()
      .optional(),
    extension_directories: z.array(z.string()).optional(),
    web_directories: z.array(z.string()).optional(),
    access: z.unknown().optional(),
    access_scopes: z
      .object({
        scopes: z.string().optional(),
        required_scopes: z.array(z.string()).optional(),
        optional_scopes: z.array(z.string()).optional(),
        use_legacy_install_flow: z.boolean().optional(),
      })
      .strict(),
    auth: z.object({ redirect_urls: z.array(url).min(1) }).strict(),
    webhooks: z
      .object({
        api_version: z.string().regex(/^\d{4}-\d{2}$/),
        subscriptions: z.array(
          z
            .object({
              topics: z.array(z.string()).optional(),
              compliance_topics: z.array(complianceTopic).optional(),
              uri: webhookUri,
              actions: z.array(z.string()).optional(),
              include_fields: z.array(z.string()).optional(),
              filter: z.string().optional(),
              payload_query: z.string().optional(),
              name: z.string().optional(),
            })
            .strict()
            .refine(
              (s) => (s.topics?.length ?? 0) + (s.compliance_topics?.length ?? 0) > 0,
              'topics or compliance_topics',
            ),
        ),
      })
      .strict(),
    pos: z.object({ embedded: z.boolean() }).strict().optional(),
    app_proxy: z.object({ url: z.string(), subpath: z.string(), prefix: z.string() }).strict().optional(),
    events: z.unknown().optional(),
  })
  .strict();

const webConfigSchema = z
  .object({
    name: z.string().optional(),
    roles: z.array(z.enum(['frontend', 'backend', 'background'])),
    webhooks_path: z.string().startsWith('/').optional(),
    auth_callback_path: z.union([z.string().startsWith('/'), z.array(z.string().startsWith('/'))]).optional(),
    port: z.number().int().min(0).max(65536).optional(),
    commands: z
      .object({ dev: z.string().min(1), build: z.string().optional(), predev: z.string().optional() })
      .strict(),
    hmr_server: z.object({ http_paths: z.array(z.string()) }).optional(),
  })
  .strict();

// The first tests report schema problems; the others still run on the file as written.
const appConfig = appConfigSchema.safeParse(appToml).data ?? (appToml as z.infer<typeof appConfigSchema>);
const webConfig = webConfigSchema.safeParse(webToml).data ?? (webToml as z.infer<typeof webConfigSchema>);

/** The Admin API scopes the app asks for, sorted: the toml declares them and the OAuth redirect asks for them. */
const SCOPES = [
  'read_fulfillments',
  'read_locales',
  'read_orders',
  'read_themes',
  'write_products',
  'write_publications',
];

describe('the Shopify CLI files', () => {
  it('shopify.app.toml has the keys the CLI requires and nothing it no longer accepts', () => {
    expect(appConfigSchema.safeParse(appToml).error?.issues ?? []).toEqual([]);
    expect((appToml as { build?: object }).build).not.toHaveProperty('include_config_on_deploy');
    // Shopify managed install with the scopes we need (token exchange in src/shopify/auth/routes.ts).
    expect(appConfig.access_scopes.scopes?.split(',').sort()).toEqual(SCOPES);
    expect(appConfig.access_scopes.use_legacy_install_flow).toBe(false);
    expect(appConfig.embedded).toBe(true);
  });

  it('application_url is the app root: no path, so relative webhook URIs land on our routes', () => {
    const applicationUrl = new URL(appConfig.application_url);
    expect(applicationUrl.protocol).toBe('https:');
    expect(applicationUrl.pathname).toBe('/');
    expect(applicationUrl.search + applicationUrl.hash).toBe('');
    // What the old application_url did: the CLI appends, it does not resolve like a browser.
    expect(resolveWebhookUri('/shopify/webhooks/', 'https://app.example.com/shopify/app')).toBe(
      'https://app.example.com/shopify/app/shopify/webhooks',
    );
  });

  it('subscribes every topic the app handles, and each compliance topic exactly once', () => {
    const topics = appConfig.webhooks.subscriptions.flatMap((s) => s.topics ?? []).sort();
    expect(topics).toEqual([
      'app/uninstalled',
      'fulfillment_events/create',
      'fulfillments/create',
      'fulfillments/update',
      'orders/cancelled',
      'orders/create',
      'orders/updated',
      'shop/update',
    ]);
    const compliance = appConfig.webhooks.subscriptions.flatMap((s) => s.compliance_topics ?? []).sort();
    expect(compliance).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
  });

  it('shopify.web.toml runs one process in both roles, with our webhook and OAuth callback paths', () => {
    expect(webConfigSchema.safeParse(webToml).error?.issues ?? []).toEqual([]);
    expect([...webConfig.roles].sort()).toEqual(['backend', 'frontend']);
    expect(webConfig.webhooks_path).toBe('/shopify/webhooks');
    expect(webConfig.auth_callback_path).toBe('/shopify/auth/callback');
    expect(webConfig.commands.dev).toBe('npm start');
  });
});

describe('every URL the CLI registers reaches a route of the running app', () => {
  let app: ShopifyTestApp;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ app, close } = await startShopifyTestAppWithFakeShopify());
  });
  afterAll(async () => {
    await close?.();
  });

  /** The placeholder origin (app.example.com) stands for our server: swap in the test app's. */
  function onTestApp(registered: string): string {
    const target = new URL(registered);
    expect(target.origin, `${registered} must point at the app's own server`).toBe(
      new URL(appConfig.application_url).origin,
    );
    return `${app.baseUrl}${target.pathname}${target.search}`;
  }

  it('each webhook subscription URI is our webhook endpoint (a bad HMAC is refused, not lost in a 404)', async () => {
    for (const subscription of appConfig.webhooks.subscriptions) {
      const registered = resolveWebhookUri(subscription.uri, appConfig.application_url);
      const topic = subscription.topics?.[0] ?? subscription.compliance_topics![0]!;
      const forged = signedWebhook('not-the-app-secret', 'cli-config.myshopify.com', topic, { id: 1 });
      const response = await fetch(onTestApp(registered), {
        method: 'POST',
        headers: forged.headers,
        body: forged.body,
      });
      expect({ registered, status: response.status }).toEqual({ registered, status: 401 });
      expect(await response.json()).toMatchObject({ error: { type: 'unauthorized' } });
    }
  });

  it('each auth.redirect_urls entry (absolute, used as is) is served', async () => {
    for (const registered of appConfig.auth.redirect_urls) {
      const response = await fetch(onTestApp(registered), { redirect: 'manual' });
      // No OAuth state here, so the callback refuses: what matters is that the route exists.
      expect({ registered, status: response.status }).toEqual({ registered, status: 400 });
      expect(await response.json()).toMatchObject({ error: { type: 'invalid_request' } });
    }
  });

  it("the dev session's URLs (the tunnel + the web toml's paths) are served", async () => {
    // services/dev/urls.ts generateApplicationURLs: redirect URL = `${tunnel}${auth_callback_path}`, app URL = tunnel.
    const callback = await fetch(`${app.baseUrl}${webConfig.auth_callback_path as string}`, { redirect: 'manual' });
    expect(callback.status).toBe(400);
    // services/dev/processes/uninstall-webhook.ts: the CLI's test webhook goes to http://localhost:{port}{webhooks_path}.
    const forged = signedWebhook('not-the-app-secret', 'cli-config.myshopify.com', 'app/uninstalled', { id: 1 });
    const webhook = await fetch(`${app.baseUrl}${webConfig.webhooks_path!}`, {
      method: 'POST',
      headers: forged.headers,
      body: forged.body,
    });
    expect(webhook.status).toBe(401);
  });

  it('application_url opens the embedded admin as Shopify loads it, and a plain page otherwise', async () => {
    const shop = `cli-config-${Date.now()}.myshopify.com`;
    const entry = new URL(appConfig.application_url);
    entry.search = new URLSearchParams({
      embedded: '1',
      host: Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url'),
      id_token: sessionToken(shop, API_KEY, SECRET),
      shop,
    }).toString();
    const admin = await fetch(onTestApp(entry.toString()));
    expect(admin.status).toBe(200);
    // The embedded admin's shell (React + Polaris; its data comes from /shopify/api).
    expect(await admin.text()).toContain('<div id="app"></div>');

    const plain = await fetch(onTestApp(appConfig.application_url));
    expect(plain.status).toBe(200);
    expect(await plain.text()).toContain('Doorstep');
  });
});

describe('`shopify app dev` runs the web command with the environment the CLI gives it', () => {
  // Shopify/cli packages/app/src/cli/services/dev/processes/web.ts (`launchWebProcess`, `runCommands`):
  // the command is split on `&&` and spaces and run in the web toml's directory with these variables.
  // One web process with both roles gets one port (services/dev.ts: frontend port = backend port).
  const tunnel = 'https://doorstep-dev.trycloudflare.com';
  const secret = 'cli-given-app-secret-value';
  let server: { child: ChildProcess; output(): string; stop(): Promise<void> };
  let port: number;
  let dataDir: string;

  beforeAll(async () => {
    port = await freePort();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-cli-dev-'));
    // normalizeDelimitedString (cli-kit common/string.ts): trimmed, de-duplicated, sorted.
    const scopes = [...new Set(appConfig.access_scopes.scopes!.split(',').map((s) => s.trim()))].sort().join(',');
    const cliEnv = {
      SHOPIFY_API_KEY: 'cli-given-client-id',
      SHOPIFY_API_SECRET: secret,
      HOST: tunnel,
      SCOPES: scopes,
      NODE_ENV: 'development',
      BACKEND_PORT: String(port),
      FRONTEND_PORT: String(port),
      APP_URL: tunnel,
      APP_ENV: 'development',
      REMIX_DEV_ORIGIN: tunnel,
      PORT: String(port),
      SERVER_PORT: String(port),
    };
    // The CLI passes the developer's own environment too; keep only what finds programs, so that
    // settings of the machine running the suite (DATABASE_URL, REDIS_URL, …) cannot stand in for the CLI's.
    const inherited = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.homedir() };
    server = await startDevCommand(webConfig.commands.dev, path.dirname(webTomlPath), {
      ...inherited,
      ...cliEnv,
      DATA_DIR: dataDir, // not the checkout's ./data, which a developer's own server may hold
    });
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it("answers on PORT and the tunnel URL with the CLI's key, secret and scopes, never logging the secret", async () => {
    const base = `http://127.0.0.1:${port}`;
    // The dev session whitelists `${tunnel}${auth_callback_path}`; OAuth must send exactly that back.
    const begin = await fetch(`${base}/shopify/auth?shop=cli-dev.myshopify.com`, {
      redirect: 'manual',
      headers: {
        'User-Agent':
          'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15',
      },
    });
    expect(begin.status).toBe(302);
    const authorize = new URL(begin.headers.get('location')!);
    expect(authorize.searchParams.get('client_id')).toBe('cli-given-client-id');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${tunnel}${webConfig.auth_callback_path as string}`);
    expect(authorize.searchParams.get('scope')!.split(',').sort()).toEqual(SCOPES);

    // The CLI's test webhook, signed with the secret it passed: accepted at webhooks_path.
    const signed = signedWebhook(secret, 'cli-dev.myshopify.com', 'app/uninstalled', { id: 1 });
    const webhook = await fetch(`${base}${webConfig.webhooks_path!}`, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
    });
    expect(webhook.status).toBe(200);

    // Record and watch links point through the tunnel too (PUBLIC_URL defaults to APP_URL).
    const started = server
      .output()
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { msg?: string; config?: { publicUrl: string; shopify: object } }];
        } catch {
          return [];
        }
      })
      .find((entry) => entry.msg === 'starting doorstep');
    expect(started?.config).toMatchObject({
      publicUrl: tunnel,
      shopify: { appUrl: tunnel, apiKey: 'cli-given-client-id', development: false },
    });
    expect(server.output()).not.toContain(secret);
  });
});

/** Runs the web toml's dev command the way the CLI's `runCommands` does; resolves once /healthz answers. */
async function startDevCommand(
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output(): string; stop(): Promise<void> }> {
  const [program, ...args] = command.split('&&')[0]!.trim().split(' ');
  // Its own process group, so stopping it reaches npm and the server npm started.
  const child = spawn(program!, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const groupAlive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    if (groupAlive()) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // npm may exit before the server it started has closed its database; wait for the whole group.
    for (let waited = 0; groupAlive() && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (groupAlive()) process.kill(-child.pid!, 'SIGKILL');
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`the dev command did not start:\n${output}`));
    }, 75_000);
    const poll = setInterval(() => {
      fetch(`http://127.0.0.1:${env.PORT}/healthz`).then(
        (response) => {
          if (!response.ok) return;
          clearInterval(poll);
          clearTimeout(timer);
          resolve();
        },
        () => {},
      );
    }, 250);
    void exited.then(() => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the dev command exited:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { child, output: () => output, stop };
}
