import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usingRealPostgres } from './support/database.ts';
import { freePort, runCli, startDoorstep } from './support/processes.ts';

const dirs: string[] = [];
function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-cli-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// The CLI's two paths to the embedded database are what is under test; with DATABASE_URL set
// (CI's PostgreSQL pass) both would go straight to the server, so these run on PGlite only.
// Every case starts the CLI (tsx, then PGlite) at least once: 6–13 s each on a busy 2-core machine,
// so the 30 s default is too tight for a case, not for the CLI.
describe.skipIf(usingRealPostgres)('CLI on the embedded database', { timeout: 120_000 }, () => {
  it('creates and lists accounts when no server is running, printing the key once', async () => {
    const env = { DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' };
    const created = await runCli(
      ['accounts', 'create', '--name', 'Corner Shop', '--revenue-share-bps', '250', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const credentials = JSON.parse(created.stdout) as { app_id: string; api_key: string };
    expect(Object.keys(credentials)).toEqual(['app_id', 'api_key']);
    const listed = await runCli(['accounts', 'list'], env);
    expect(listed.stdout).toContain(credentials.app_id);
    expect(listed.stdout).toContain('Corner Shop');
    expect(listed.stdout).not.toContain(credentials.api_key);
  });

  it('a command group alone names its commands (billing probe: "Unknown command")', async () => {
    const env = { DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' };
    const alone = await runCli(['accounts'], env);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('"accounts" needs one of its commands:');
    expect(alone.stderr).toContain('accounts create');
    expect(alone.stderr).not.toContain('Unknown command');
  });

  it('shopify simulate with no server up says where it looked, in one line, before registering anything', async () => {
    const port = await freePort();
    const env = { DATA_DIR: tempDataDir(), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent' };
    const result = await runCli(['shopify', 'simulate', 'corner-shop.myshopify.com'], env);
    expect(result.code).toBe(1);
    // After the line saying which database the CLI opened: the mistake, in one line, no stack.
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `No Doorstep server answers at http://127.0.0.1:${port}/healthz (ECONNREFUSED). Start it with \`npm start\`, or set PUBLIC_URL to where it runs; no shop was registered.`,
    );
    expect(result.stdout).not.toContain('API key');
    // Nothing was registered: the shop's account does not exist.
    const listed = await runCli(['accounts', 'list'], env);
    expect(listed.stdout).not.toContain('corner-shop');
  });

  it('goes through the running server, whose API then accepts the new credentials', async () => {
    const doorstep = await startDoorstep({ name: 'cli', env: { LOG_LEVEL: 'warn' } });
    const { env, proc: server } = doorstep;
    const port = env.PORT;
    try {
      const created = await runCli(['accounts', 'create', '--name', 'Live Shop', '--json'], env);
      // It says which database it used: the server's, through its admin socket.
      expect(created.stderr).toMatch(
        /^Database: the embedded one in .+, through the server running on it \(pid \d+\)\.\n$/,
      );

      // Run from elsewhere (another DATA_DIR) while that server answers: a fresh database, and a warning.
      const elsewhere = await runCli(['accounts', 'list'], { ...env, DATA_DIR: tempDataDir() });
      expect(elsewhere.stderr).toMatch(/\(new: created just now\)/);
      expect(elsewhere.stderr).toMatch(/Warning: a Doorstep server answers on port \d+, but it does not use/);
      const { app_id, api_key } = JSON.parse(created.stdout) as { app_id: string; api_key: string };
      const response = await fetch(`http://127.0.0.1:${port}/v1/orders`, {
        headers: { Authorization: `Basic ${Buffer.from(`${app_id}:${api_key}`).toString('base64')}` },
      });
      expect(response.status).toBe(200);
      expect(server.output()).not.toContain(api_key);
    } finally {
      await doorstep.stop();
    }
  });

  it('explains bad arguments without a stack trace', async () => {
    const env = { DATA_DIR: tempDataDir() };
    const missing = await runCli(['accounts', 'create'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--name');
    const unknown = await runCli(['frobnicate'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown command');
    const badShare = await runCli(['accounts', 'create', '--name', 'x', '--revenue-share-bps', '20000'], env);
    expect(badShare.code).toBe(1);
    expect(badShare.stderr).toMatch(/revenueShareBps|revenue/);
    expect(badShare.stderr).not.toMatch(/at .*\.ts:\d+/);
    // parseArgs' own errors: one line naming the option, exit 2, no ERR_PARSE_ARGS_ code or stack.
    for (const args of [
      ['accounts', 'create', '--name'],
      ['accounts', 'create', '--nmae', 'x'],
    ]) {
      const wrong = await runCli(args, env);
      expect(wrong.code, args.join(' ')).toBe(2);
      expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
      expect(wrong.stderr).toMatch(/--name|--nmae/);
      expect(wrong.stderr).not.toMatch(/ERR_PARSE_ARGS|at .*:\d+/);
    }
  });

  it('says what it cannot find in one line, exit 1, when it opens the database itself (billing probe: stack traces)', async () => {
    const env = { DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent' };
    const cases: Array<[string[], string]> = [
      [['billing', 'statement', 'nobody', '2026-12'], 'No account "nobody" (give its app id or id).'],
      // A shop that never installed is not an empty bill.
      [
        ['billing', 'shop', 'nope.myshopify.com', '2026-11'],
        'No shop "nope.myshopify.com": it never installed Doorstep.',
      ],
      [['webhooks', 'replay', '1'], 'No webhook receipt with id "1".'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout, args.join(' ')).toBe('');
      // After the line saying which database it opened: the one line of what is wrong.
      const [, ...rest] = result.stderr.trim().split('\n');
      expect(rest, args.join(' ')).toEqual([message]);
    }
    const unknownShop = await runCli(['shops', 'set', 'x.myshopify.com', '--fallback', 'on'], env);
    expect(unknownShop.code).toBe(1);
    expect(unknownShop.stderr.trim().split('\n')).toHaveLength(2);
    expect(unknownShop.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('an unreachable DATABASE_URL', { timeout: 120_000 }, () => {
  it('says which database, then one line naming the setting (password masked), not a stack', async () => {
    const result = await runCli(['accounts', 'list'], {
      DATA_DIR: tempDataDir(),
      DATABASE_URL: 'postgres://doorstep:hunter2@127.0.0.1:1/doorstep',
      CARRIER_SANDBOX: 'on',
      TOKEN_ENCRYPTION_KEY: 'a'.repeat(64),
    });
    expect(result.code).toBe(1);
    // Which database it tried, then the one line about what is wrong with it.
    const [which, problem, ...rest] = result.stderr.trim().split('\n');
    expect(which).toBe('Database: PostgreSQL at postgres://doorstep:***@127.0.0.1:1/doorstep.');
    expect(problem).toMatch(
      /^DATABASE_URL \(postgres:\/\/doorstep:\*\*\*@127\.0\.0\.1:1\/doorstep\) cannot be used: .*ECONNREFUSED/,
    );
    expect(rest).toEqual([]);
    expect(result.stderr).not.toContain('hunter2');
  });
});
