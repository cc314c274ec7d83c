import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { adminCommands } from '../admin/commands.ts';
import { adminSocketPath } from '../admin/socket.ts';
import { ConfigError, loadConfig, redactUrl, type Config } from '../config.ts';
import { DomainError } from '../errors.ts';
import { DataDirLockedError, dataDirHolder } from '../db/data-dir-lock.ts';
import { openConfiguredDatabase } from '../db/open.ts';
import { loadShopifyConfig, ShopifyConfigError } from '../shopify/config.ts';
import { signedAdminUrl } from '../shopify/auth/admin-url.ts';
import { parseShopDomain } from '../shopify/shops.ts';
import { tokenCipherFor } from '../shopify/auth/token-key-file.ts';
import type { MonthBill } from '../billing/shopify-billing.ts';
import type { Statement } from '../billing/statements.ts';

const usage = `Usage: npm run cli -- <command>

Commands:
  accounts create --name <name> [--revenue-share-bps N] [--json]
                            Create an account; prints its app id and API key (shown only once).
  accounts list [--json]    List accounts.
  migrate                   Apply database migrations (the server also does this at start).
  billing statement <account> <YYYY-MM> [--json]
                            The account's revenue-share statement for a month (UTC); <account> is its
                            app id (see accounts list) or id.
  billing shop <shop> <YYYY-MM> [--json]
                            A Shopify shop's usage charges for a month (UTC): charged through Shopify,
                            pending, unbilled (no active plan) and over the cap.

Shopify:
  shops add <shop>.myshopify.com [--rotate-key] [--json]
                            Register a shop (and its account) as if it installed the app; prints the
                            account's app id and API key (new accounts, or with --rotate-key).
  shops set <shop> [--fallback on|off] [--alias "Name=ups"]... [--gift-packages all_shipped_items|gift_item]
                            Shopify's delivered status as a fallback; the shop's carrier names;
                            which shipped items a non-shipping video add-on waits for.
  webhooks list [--status received|processed|failed] [--json]
  webhooks replay <webhook-id>
                            Process a stored webhook again (idempotent: what is done stays done).
  shopify simulate <shop> [--carrier-company "Canada Post"] [--tracking-number N] [--add-on]
                            Play a store story against the running app at PUBLIC_URL: an order with a
                            video line item (--add-on: a non-shipping video add-on next to a shipped
                            gift), a fulfillment with tracking, delivery.
  shopify rotate-token-key [--json]
                            Re-encrypt every shop's Shopify tokens under TOKEN_ENCRYPTION_KEY (values
                            under TOKEN_ENCRYPTION_PREVIOUS_KEYS, and plain text of earlier versions);
                            prints how many it changed. Then the previous keys can be dropped.
  shopify admin-url <shop>  Print a signed URL that opens the shop's embedded admin in a browser, as
                            the Shopify admin would (valid 15 minutes; signed with SHOPIFY_API_SECRET,
                            or the development secret).
`;

type Runner = (command: string, args: Record<string, unknown>) => Promise<unknown>;

/** Whether a Doorstep server answers /healthz on this machine's `port` (half a second at most). */
async function serverAnswersOn(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Runs admin commands against the configured database. With the embedded database, the running
 * server owns it, so commands go through the server's admin socket; when no server runs, the CLI
 * opens the database itself (and holds its lock while it does).
 */
async function withRunner<T>(config: Config, use: (run: Runner) => Promise<T>): Promise<T> {
  const holder = config.databaseUrl ? null : dataDirHolder(config.dataDir);
  if (holder !== null) {
    process.stderr.write(
      `Database: the embedded one in ${config.dataDir}, through the server running on it (pid ${holder}).\n`,
    );
    return use((command, args) => callAdminSocketPatiently(adminSocketPath(config.dataDir), command, args));
  }
  // Say which database this is: run from another directory without DATA_DIR, the CLI would
  // otherwise quietly make a fresh ./data whose credentials no running server knows.
  const isNew = !config.databaseUrl && !fs.existsSync(path.join(config.dataDir, 'pglite'));
  process.stderr.write(
    config.databaseUrl
      ? `Database: PostgreSQL at ${redactUrl(config.databaseUrl)}.\n`
      : `Database: the embedded one in ${config.dataDir}${isNew ? ' (new: created just now)' : ''}.\n`,
  );
  if (isNew && (await serverAnswersOn(config.port)))
    process.stderr.write(
      `Warning: a Doorstep server answers on port ${config.port}, but it does not use ${config.dataDir}, which was just created empty. ` +
        "What this command makes will not exist there: run it in the server's directory, or set DATA_DIR to the server's DATA_DIR.\n",
    );
  const database = await openConfiguredDatabase(config);
  try {
    const commands = adminCommands(database.db, {
      publicUrl: config.publicUrl,
      tokenCipher: () => tokenCipherFor(config),
    });
    return await use((command, args) => commands.run(command, args));
  } finally {
    await database.close();
  }
}

function callAdminSocket(socketPath: string, command: string, args: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(args);
    const request = http.request(
      {
        socketPath,
        path: `/admin/${command}`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            error?: { message: string; fields?: Record<string, string> };
          };
          if ((response.statusCode ?? 500) >= 400) reject(new CliError(describeError(parsed.error)));
          else resolve(parsed);
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const message = `The server holds the embedded database but its admin socket ${socketPath} did not answer (${error.message}).`;
      // Only "nobody listens yet" is safe to retry: the command never reached the server.
      reject(
        error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
          ? new AdminSocketUnavailable(message)
          : new CliError(message),
      );
    });
    request.end(body);
  });
}

class CliError extends Error {}
class AdminSocketUnavailable extends CliError {}

/** A server that is still starting holds the database before its socket listens: wait a little. */
async function callAdminSocketPatiently(
  socketPath: string,
  command: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await callAdminSocket(socketPath, command, args);
    } catch (error) {
      if (!(error instanceof AdminSocketUnavailable) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function describeError(error: { message: string; fields?: Record<string, string> } | undefined): string {
  if (!error) return 'The command failed.';
  const fields = Object.entries(error.fields ?? {}).map(([field, problem]) => `  ${field}: ${problem}`);
  return [error.message, ...fields].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'revenue-share-bps': { type: 'string' },
      json: { type: 'boolean', default: false },
      'rotate-key': { type: 'boolean', default: false },
      fallback: { type: 'string' },
      'gift-packages': { type: 'string' },
      alias: { type: 'string', multiple: true },
      status: { type: 'string' },
      'carrier-company': { type: 'string' },
      'tracking-number': { type: 'string' },
      'add-on': { type: 'boolean' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  // Two-word commands take their argument after them (`shops add <shop>`); the rest are whole.
  const twoWord = ['shops add', 'shops set', 'webhooks replay', 'shopify simulate', 'shopify admin-url'];
  // Commands with two arguments of their own.
  const withTwoArguments = ['billing statement', 'billing shop'];
  const head = positionals.slice(0, 2).join(' ');
  if (withTwoArguments.includes(head) && positionals.length !== 4)
    throw new CliError(`${head} needs exactly two arguments.\n\n${usage}`);
  const command = twoWord.includes(head) || withTwoArguments.includes(head) ? head : positionals.join(' ');
  const argument = twoWord.includes(head) ? positionals[2] : undefined;
  if (twoWord.includes(head) && (argument === undefined || positionals.length > 3))
    throw new CliError(`${head} needs exactly one argument.\n\n${usage}`);
  if (values.help || command === '' || command === 'help') {
    process.stdout.write(usage);
    return;
  }
  // A group alone ("accounts", "billing") names its commands, rather than calling itself unknown
  // (billing probe).
  const group = usage.split('\n').filter((line) => line.startsWith(`  ${command} `));
  if (positionals.length === 1 && group.length > 0)
    throw new CliError(`"${command}" needs one of its commands:\n${group.join('\n')}`);
  const config = loadConfig();
  if (command === 'shopify admin-url') {
    // Signing needs only the configuration: no database, no running server.
    const shopify = loadShopifyConfig(process.env, config.publicUrl);
    const url = await signedAdminUrl({
      publicUrl: config.publicUrl,
      shop: parseShopDomain(argument),
      apiKey: shopify.apiKey,
      apiSecret: shopify.apiSecret,
      now: new Date(),
    });
    process.stdout.write(`${url}\n`);
    if (!shopify.development)
      process.stderr.write(
        'With real credentials the page loads Shopify’s App Bridge, which works only inside the Shopify admin.\n',
      );
    return;
  }
  await withRunner(config, async (run) => {
    switch (command) {
      case 'accounts create': {
        if (!values.name) throw new CliError('accounts create needs --name <name>.');
        const share = values['revenue-share-bps'];
        if (share !== undefined && !/^\d+$/.test(share))
          throw new CliError('--revenue-share-bps must be a whole number from 0 to 10000.');
        const created = (await run('accounts.create', {
          name: values.name,
          revenueShareBps: share === undefined ? null : Number(share),
        })) as {
          app_id: string;
          api_key: string;
          name: string;
        };
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ app_id: created.app_id, api_key: created.api_key })}\n`);
        } else {
          process.stdout.write(
            `Created account "${created.name}".\n  app id:  ${created.app_id}\n  API key: ${created.api_key}\n` +
              `The API key is shown only this once; store it now.\n`,
          );
        }
        return;
      }
      case 'accounts list': {
        const accounts = (await run('accounts.list', {})) as Array<{
          app_id: string;
          name: string;
          revenue_share_bps: number | null;
          created_at: string;
        }>;
        if (values.json) {
          process.stdout.write(`${JSON.stringify(accounts)}\n`);
        } else if (accounts.length === 0) {
          process.stdout.write('No accounts yet. Create one with: npm run cli -- accounts create --name "My store"\n');
        } else {
          for (const a of accounts)
            process.stdout.write(`${a.app_id}  ${a.created_at}  ${a.revenue_share_bps ?? '-'} bps  ${a.name}\n`);
        }
        return;
      }
      case 'billing statement': {
        const [account, month] = positionals.slice(2);
        const statement = (await run('billing.statement', { account, month })) as Statement;
        if (values.json) {
          process.stdout.write(`${JSON.stringify(statement)}\n`);
          return;
        }
        const money = (cents: number) => (cents / 100).toFixed(2);
        process.stdout.write(
          `Statement ${statement.month} (${statement.status}) for ${statement.account_id}\n` +
            `  ${statement.orders_sent} video(s) sent, ${statement.orders_without_price} without a price\n` +
            `  total price ${money(statement.total_price_cents)}\n` +
            (statement.revenue_share_bps === null
              ? '  not on the revenue-share plan: nothing owed\n'
              : `  share ${statement.revenue_share_bps} bps = ${money(statement.share_cents)} (${statement.rounding})\n`),
        );
        return;
      }
      case 'billing shop': {
        const [shop, month] = positionals.slice(2);
        const bill = (await run('billing.shop', { shop, month })) as MonthBill;
        if (values.json) {
          process.stdout.write(`${JSON.stringify(bill)}\n`);
          return;
        }
        const money = (cents: number) => (cents / 100).toFixed(2);
        process.stdout.write(
          `Shopify bill ${bill.month} for ${bill.shop} (plan: ${bill.subscription_status})\n` +
            `  ${bill.videos_charged} video(s) charged: ${money(bill.charged_cents)} USD\n` +
            `  pending ${money(bill.pending_cents)}, unbilled ${money(bill.unbilled_cents)}, over the cap ${money(bill.over_cap_cents)}\n` +
            (bill.maybe_charged_cents > 0
              ? `  ${money(bill.maybe_charged_cents)} not charged again: may already be charged at Shopify (an attempt before the plan ended; see --json)\n`
              : '') +
            (bill.other_currency_videos > 0
              ? `  ${bill.other_currency_videos} video(s) of orders in other currencies: not billed (USD only)\n`
              : ''),
        );
        return;
      }
      case 'migrate': {
        const result = (await run('migrate', {})) as { applied: string[] };
        process.stdout.write(
          result.applied.length ? `Applied: ${result.applied.join(', ')}\n` : 'The database is up to date.\n',
        );
        return;
      }
      case 'shops add': {
        const added = (await run('shops.add', { shop: argument, rotateKey: values['rotate-key'] })) as {
          shop: string;
          app_id: string;
          api_key: string | null;
          created: boolean;
        };
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ app_id: added.app_id, api_key: added.api_key })}\n`);
        } else {
          process.stdout.write(
            `${added.created ? 'Registered' : 'Re-activated'} shop ${added.shop}.\n  app id:  ${added.app_id}\n` +
              (added.api_key
                ? `  API key: ${added.api_key}\nThe API key is shown only this once; store it now.\n`
                : `  API key: (shown when the shop was first added; use --rotate-key for a new one)\n`),
          );
        }
        return;
      }
      case 'shops set': {
        const settings: Record<string, unknown> = { shop: argument };
        if (values.fallback !== undefined) {
          if (!['on', 'off'].includes(values.fallback)) throw new CliError('--fallback must be on or off.');
          settings.fallback_delivered = values.fallback === 'on';
        }
        if (values['gift-packages'] !== undefined) settings.gift_packages = values['gift-packages'];
        if (values.alias) {
          settings.carrier_aliases = Object.fromEntries(
            values.alias.map((alias) => {
              const at = alias.lastIndexOf('=');
              if (at <= 0) throw new CliError(`--alias must look like "Carrier name=ups", not "${alias}".`);
              return [alias.slice(0, at).trim(), alias.slice(at + 1).trim()];
            }),
          );
        }
        process.stdout.write(`${JSON.stringify(await run('shops.settings', settings), null, values.json ? 0 : 2)}\n`);
        return;
      }
      case 'webhooks list': {
        const rows = (await run('webhooks.list', values.status ? { status: values.status } : {})) as Array<{
          webhook_id: string;
          topic: string;
          shop: string;
          status: string;
          error: string | null;
          note: string | null;
          received_at: string;
        }>;
        if (values.json) {
          process.stdout.write(`${JSON.stringify(rows)}\n`);
        } else if (rows.length === 0) {
          process.stdout.write('No webhooks received.\n');
        } else {
          for (const r of rows)
            process.stdout.write(
              `${r.received_at}  ${r.status.padEnd(9)}  ${r.topic.padEnd(26)}  ${r.shop}  ${r.webhook_id}${r.error ? `\n    error: ${r.error}` : ''}${r.note ? `\n    note: ${r.note}` : ''}\n`,
            );
        }
        return;
      }
      case 'webhooks replay': {
        const result = await run('webhooks.replay', { id: argument });
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      case 'shopify rotate-token-key': {
        const rotated = (await run('shopify.rotate-token-key', {})) as {
          key_id: string;
          changed: number;
          already_current: number;
          unreadable: Array<{ shop: string; reason: string }>;
        };
        if (values.json) process.stdout.write(`${JSON.stringify(rotated)}\n`);
        else
          process.stdout.write(
            `Re-encrypted the tokens of ${rotated.changed} shop(s) under key ${rotated.key_id}; ` +
              `${rotated.already_current} already under it.\n`,
          );
        if (rotated.unreadable.length > 0) {
          // Not done: dropping a previous key now would lose these shops' tokens.
          throw new CliError(
            `The tokens of ${rotated.unreadable.length} shop(s) were left as they are: no key this process has opens them. ` +
              'Keep the key they were written with in TOKEN_ENCRYPTION_PREVIOUS_KEYS and run this again ' +
              '(or, if that key is lost, those merchants reconnect by opening the app).\n' +
              rotated.unreadable.map((u) => `  ${u.shop}: ${u.reason}`).join('\n'),
          );
        }
        return;
      }
      case 'shopify simulate': {
        const shopify = loadShopifyConfig(process.env, config.publicUrl);
        // The story is sent to a running server; without one, stop before registering the shop, whose
        // API key is shown only once.
        await assertServerAnswers(config.publicUrl);
        const added = (await run('shops.add', { shop: argument })) as {
          shop: string;
          app_id: string;
          api_key: string | null;
        };
        process.stdout.write(
          `Shop ${added.shop} (account app id ${added.app_id})${added.api_key ? `, API key ${added.api_key} (shown once)` : ''}\n`,
        );
        // A development tool: its module (src/shopify/dev/) is loaded only when this command runs.
        const { simulateStore } = await import('../shopify/dev/simulate.ts');
        const order = await simulateStore({
          shop: added.shop,
          publicUrl: config.publicUrl,
          apiSecret: shopify.apiSecret,
          carrierCompany: values['carrier-company'] ?? 'UPS',
          trackingNumber: values['tracking-number'],
          addOn: values['add-on'],
          videoOrders: async (shopifyOrderId) =>
            (await run('shopify.orders', { shop: added.shop, shopifyOrderId })) as never,
          log: (line) => process.stdout.write(`${line}\n`),
        });
        process.stdout.write(`${JSON.stringify(order, null, 2)}\n`);
        return;
      }
      default:
        throw new CliError(`Unknown command "${command}".\n\n${usage}`);
    }
  });
}

async function assertServerAnswers(publicUrl: string): Promise<void> {
  const url = `${publicUrl}/healthz`;
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new CliError(
      `No Doorstep server answers at ${url} (${cause}). Start it with \`npm start\`, or set PUBLIC_URL to where it runs; no shop was registered.`,
    );
  }
}

/** node:util parseArgs' own errors (a missing value, an unknown or mistyped option): the user's to fix. */
function isArgumentError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (isArgumentError(error)) {
    // One line with what was wrong, and where the usage is; never a stack.
    const what = error.message.split('. To specify a positional argument')[0];
    process.stderr.write(`${what}. Run \`npm run cli -- help\` for the commands and their options.\n`);
    process.exitCode = 2;
    return;
  }
  const expected =
    error instanceof CliError ||
    error instanceof ConfigError ||
    error instanceof ShopifyConfigError ||
    error instanceof DataDirLockedError ||
    // The domain's named errors say what is wrong in words (no account "x", a conflict): as through the
    // server's admin socket, one line, never a stack (billing probe).
    error instanceof DomainError;
  const message = expected ? error.message : String(error instanceof Error ? error.stack : error);
  const fields = (error as { fields?: Record<string, string> }).fields;
  process.stderr.write(
    `${message}${
      fields
        ? `\n${Object.entries(fields)
            .map(([f, p]) => `  ${f}: ${p}`)
            .join('\n')}`
        : ''
    }\n`,
  );
  process.exitCode = 1;
});
