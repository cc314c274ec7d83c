import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/db/open.ts';
import { startMailServer } from '../support/mail-server.ts';
import { startDoorstep, waitForExit, waitForOutput, type RunningDoorstep } from '../support/processes.ts';
import { createStore, deliverOneOrder } from '../support/story.ts';

/**
 * SIGTERM and SIGINT on `npm start` (web + workers + the private redis-server) in a real child
 * process. The send is held in flight by a real SMTP server that does not answer yet: the seam that
 * shows what shutdown does with a job it holds. On the embedded PGlite by default; with
 * DATABASE_URL set (`npm run test:postgres`) the same processes run on PostgreSQL.
 */
const SHUTDOWN_TIMEOUT_MS = 4_000;
/** Start-up of a child under a loaded machine and the exit itself, on top of the deadline. */
const EXIT_SLACK_MS = 6_000;

let mail: Awaited<ReturnType<typeof startMailServer>>;
const running: RunningDoorstep[] = [];

beforeAll(async () => {
  mail = await startMailServer();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((doorstep) => doorstep.stop()));
});
afterAll(async () => {
  await mail.close();
});

async function startWithSmtp(options: { detached?: boolean } = {}) {
  const doorstep = await startDoorstep({
    name: 'shutdown',
    // SHUTDOWN_TIMEOUT_MS short; the private redis-server child is the one a group signal reaches too.
    env: { SMTP_URL: mail.url, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) },
    ...options,
  });
  running.push(doorstep);
  return doorstep;
}

/** The order's recipient send as PostgreSQL has it, read once the process is gone. */
async function recipientSendStatus(dataDir: string, orderId: string): Promise<string | undefined> {
  const database = await openConfiguredDatabase(
    loadConfig({ ...process.env, DATA_DIR: dataDir, CARRIER_SANDBOX: 'on' }),
  );
  try {
    const row = await database.db
      .selectFrom('sends')
      .select('status')
      .where('order_id', '=', orderId)
      .where('kind', '=', 'recipient_video')
      .executeTakeFirst();
    return row?.status;
  } finally {
    await database.close();
  }
}

describe('SIGTERM while a send is in flight', () => {
  it('finishes the send, records it, and exits 0 within the deadline', async () => {
    const { proc, base, dataDir } = await startWithSmtp();
    const store = await createStore(base, { DATA_DIR: dataDir, CARRIER_SANDBOX: 'on' });
    const held = mail.holdMessageTo('finish@example.com');
    const order = await deliverOneOrder(base, store, 'finish@example.com');
    await held.arrived; // the dispatcher's job now waits on the SMTP server's answer

    proc.child.kill('SIGTERM');
    await waitForOutput(proc, /"msg":"shutting down"/);
    // Shutdown has begun and the job is still in flight: the process must wait for it.
    expect(proc.child.exitCode).toBeNull();
    held.release();
    const exit = await waitForExit(proc.child, SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);

    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(mail.messages.filter((m) => m.to.includes('finish@example.com'))).toHaveLength(1);
    expect(await recipientSendStatus(dataDir, order.id)).toBe('sent');
  }, 180_000);

  it('gives up at SHUTDOWN_TIMEOUT_MS with exit 1 when the job never finishes, leaving it in PostgreSQL', async () => {
    const { proc, base, dataDir } = await startWithSmtp();
    const store = await createStore(base, { DATA_DIR: dataDir, CARRIER_SANDBOX: 'on' });
    const held = mail.holdMessageTo('stuck@example.com');
    const order = await deliverOneOrder(base, store, 'stuck@example.com', '1Z879E930346834440');
    await held.arrived;

    const signalledAt = Date.now();
    proc.child.kill('SIGTERM');
    const exit = await waitForExit(proc.child, SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
    held.release(); // too late: nobody is waiting for the answer any more

    expect(exit.code).toBe(1);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS);
    expect(proc.output()).toMatch(/"step":"workers".*shutdown did not finish within SHUTDOWN_TIMEOUT_MS/);
    // Not lost: the row says the provider may have been called, so the reconciler marks it
    // `uncertain` and resolves it from what the provider says, or alerts the merchant
    // (src/notifications/dispatcher.ts); it never sends it twice.
    expect(await recipientSendStatus(dataDir, order.id)).toBe('sending');
  }, 180_000);
});

describe('SIGTERM to the whole process group', () => {
  it('finishes the send in flight and exits 0 within the deadline although redis-server died at the same moment', async () => {
    const { proc, base, dataDir } = await startWithSmtp({ detached: true });
    const store = await createStore(base, { DATA_DIR: dataDir, CARRIER_SANDBOX: 'on' });
    const held = mail.holdMessageTo('group@example.com');
    const order = await deliverOneOrder(base, store, 'group@example.com', '1Z8V92A70367203024');
    await held.arrived;

    // What systemd, Docker and `kill -- -PID` do: the signal reaches node and redis-server together.
    process.kill(-proc.child.pid!, 'SIGTERM');
    await waitForOutput(proc, /"msg":"shutting down"/);
    held.release(); // the job now finishes, with its Redis already gone
    const exit = await waitForExit(proc.child, SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);

    expect(exit, proc.output().slice(-2000)).toMatchObject({ code: 0, signal: null });
    expect(exit.afterMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(proc.output()).toMatch(/"msg":"stopped"/);
    // The send's own work was done: in the inbox once, and recorded as sent in PostgreSQL.
    expect(mail.messages.filter((m) => m.to.includes('group@example.com'))).toHaveLength(1);
    expect(await recipientSendStatus(dataDir, order.id)).toBe('sent');
    // No flood of connection errors while it went (issue 13 item 8 logged ECONNREFUSED 262 times): at
    // most one line from each of the two Redis state logs (queue producers, workers), whichever of
    // them noticed before the process ended (CI saw both; a quiet machine usually neither).
    const refusedLines = proc
      .output()
      .split('\n')
      .filter((line) => line.includes('ECONNREFUSED'));
    expect(refusedLines.length, refusedLines.join('\n')).toBeLessThanOrEqual(2);
    // A clean stop is no alarm (issue 31, 7): before, every one logged at level 50 that the private
    // redis-server had died and was being started again.
    expect(proc.output()).not.toContain('the private redis-server died');
    expect(
      proc
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":50')),
    ).toEqual([]);
  }, 180_000);
});
