import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PRIVATE_REDIS_PID_FILE } from '../../src/redis/private-redis.ts';
import { doorstepForFile, waitForOutput, type DoorstepProcess, type RunningDoorstep } from '../support/processes.ts';
import { createStore, sampleVideo } from '../support/story.ts';
import { eventually } from '../support/workers.ts';
import { mailServerForFile, type MailServer } from '../support/mail-server-for-file.ts';

/**
 * Issue 13, "Redis killed and restarted": `npm start`'s private redis-server is killed while
 * delivered orders wait to be sent. The process starts it again on the same port and data, and
 * every recipient gets exactly one e-mail — none lost, none twice.
 */
let mail: MailServer;
let proc: DoorstepProcess;
let dataDir: string;
let base: string;
let env: RunningDoorstep['env'];

mailServerForFile((started) => (mail = started));
doorstepForFile(
  () => ({ name: 'redis-dies', env: { SMTP_URL: mail.url } }),
  (started) => ({ proc, dataDir, base, env } = started),
);

it('a killed private Redis comes back by itself and every waiting send goes out exactly once', async () => {
  const store = await createStore(base, env);
  const recipients = ['wait-1@example.com', 'wait-2@example.com', 'wait-3@example.com'];
  const ids: string[] = [];
  for (const recipient of recipients) {
    const created = await store.api('POST', '/v1/orders', {
      name: 'Ann',
      email: 'ann@example.com',
      recipient_name: 'Bob',
      recipient_email: recipient,
    });
    const id = created.body.id as string;
    ids.push(id);
    expect((await store.api('PUT', `/v1/orders/${id}/video`, sampleVideo(), 'video/webm')).status).toBe(200);
  }
  await eventually(
    async () => {
      for (const id of ids) if ((await store.api('GET', `/v1/orders/${id}`)).body.video_processed !== '1') return;
      return true;
    },
    30_000,
    'the videos processed',
  );

  // Redis dies; the deliveries arrive while it is gone.
  const pid = Number(fs.readFileSync(path.join(dataDir, 'redis', PRIVATE_REDIS_PID_FILE), 'utf8'));
  process.kill(pid, 'SIGKILL');
  for (const id of ids) expect((await store.api('PUT', `/v1/orders/${id}`, { delivered: 1 })).status).toBe(200);

  await waitForOutput(proc, /the private redis-server is back/, 30_000);
  const to = (address: string) => mail.messages.filter((m) => m.to.includes(address));
  await eventually(
    async () => (recipients.every((r) => to(r).length > 0) ? true : undefined),
    60_000,
    'every recipient e-mail',
  );
  // The sender's "was sent" notes come after the recipients' e-mails: once all are in, the
  // dispatcher has moved past them, and a duplicate would have shown.
  await eventually(
    async () => (to('ann@example.com').filter((m) => /was sent/i.test(m.raw)).length >= 3 ? true : undefined),
    60_000,
    "the senders' notes",
  );
  for (const recipient of recipients) expect(to(recipient), recipient).toHaveLength(1);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);
}, 180_000);
