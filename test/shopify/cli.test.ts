import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-shopify-cli-'));
const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' };
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('npm run cli -- shops / webhooks', () => {
  it('shops add registers a shop and its account, printing the app id and API key (--json)', async () => {
    const added = await runCli(['shops', 'add', 'cli-store.myshopify.com', '--json'], env);
    expect(added.code).toBe(0);
    const json = JSON.parse(added.stdout);
    expect(json).toEqual({ app_id: expect.stringMatching(/^app_/), api_key: expect.stringMatching(/^dsk_/) });

    const again = await runCli(['shops', 'add', 'cli-store.myshopify.com'], env);
    expect(again.stdout).toContain(json.app_id);
    expect(again.stdout).toContain('--rotate-key');

    const bad = await runCli(['shops', 'add', 'not a shop'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('myshopify.com');
  }, 60_000);

  it('webhooks replay names an unknown id; webhooks list answers', async () => {
    const replay = await runCli(['webhooks', 'replay', 'nope'], env);
    expect(replay.code).not.toBe(0);
    expect(replay.stderr).toContain('No webhook receipt');
    const list = await runCli(['webhooks', 'list'], env);
    expect(list.stdout).toContain('No webhooks received');
  }, 60_000);
});
