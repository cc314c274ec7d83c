/**
 * How fast a backlog of due messages leaves: `npm run bench:sending` (PGlite) or
 * `scripts/with-postgres.sh npm run bench:sending -- --fsync` (PostgreSQL, commits flushed).
 *
 * N delivered orders, each with its recipient's video due now by e-mail, are written straight in
 * SQL; then the real workers start (BullMQ on a private Redis, the one-second send tick and the
 * "dispatch now" jobs, exactly as `npm start` runs them) and send to a real SMTP server in this
 * process (test/support/mail-server.ts). Each accepted video queues its sender's "was sent" note, so
 * the backlog is 2N e-mails. Measured until every one is sent: e-mails per second, the time the
 * last recipient's video took, SMTP connections opened, and the process's CPU time per e-mail
 * (the dispatcher and the SMTP server both), with the load average before and after.
 *
 * Options: `--sends N` (default 5000), `--fsync` (PostgreSQL: fsync on, as production commits),
 * `--outbox` (no SMTP_URL: the embedded default's .eml files, as `npm run bench` runs; counted in `sends`),
 * `--json`.
 *
 * A new SMTP connection costs ~105 ms here, nearly all of it the server's greeting: smtp-server
 * waits 100 ms before it greets, to catch clients that talk too early (Postfix's postscreen pauses
 * 6 s for the same reason; a provider adds a TLS handshake). One connection per e-mail paid that
 * every time; the pool pays it once per 100 messages.
 * Prints a markdown table (for the bench report); with `--json`, then the figures as one JSON line.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { startWorkers } from '../jobs/start-workers.ts';
import { createServices } from '../src/app.ts';
import { createLogger } from '../src/logger.ts';
import { compileMessageTemplates } from '../src/notifications/messages/message-templates.ts';
import { startMailServer } from '../test/support/mail-server.ts';
import { startInProcessBase } from './support/in-process.ts';
import { scratchDatabase } from './support/scratch-database.ts';

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '5000' },
    fsync: { type: 'boolean', default: false },
    outbox: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const sends = Number(values.sends);
if (!Number.isInteger(sends) || sends < 1)
  throw new RangeError(`--sends must be a positive integer, got ${values.sends}`);

const loadBefore = os.loadavg()[0]!;
const mail = await startMailServer();
const logger = createLogger(process.env.LOG_LEVEL ?? 'silent');
// On PostgreSQL the backlog is written into a scratch database of its own, dropped at the end: the
// caller's (npm run bench's) tables stay as the other steps left them.
const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, 'sending') : undefined;
const base = await startInProcessBase({
  name: 'sending',
  env: {
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    SMTP_URL: values.outbox ? '' : mail.url,
    CARRIER_SANDBOX: 'on',
    LOG_LEVEL: 'silent',
  },
  fsync: values.fsync,
  logger,
});
const { config, database } = base;
const { db } = database;

// The backlog: N delivered gifts whose processed video is due to their recipient now, as a burst of
// deliveries leaves them. Integers are written into the statements: PGlite's raw SQL takes no parameters.
await sql
  .raw(
    `insert into accounts (id, name, app_id, api_key_hash) values ('acc_bench_send', 'Bench Store', 'app_bench_send', repeat('1', 64))`,
  )
  .execute(db);
await sql
  .raw(
    `insert into orders (id, account_id, uuid, status, name, email, recipient_name, recipient_email, send_method,
                         send_trigger, delivered, delivered_at, video_title, video_processed, price, created_at, updated_at)
     select 'ord_bsend_' || g, 'acc_bench_send', gen_random_uuid(), 'delivered', 'Bench Sender',
            'sender' || g || '@example.com', 'Bench Recipient', 'recipient' || g || '@example.com', 'email',
            'package', true, now(), '', true, 1200, now(), now()
     from generate_series(1, ${sends}) g`,
  )
  .execute(db);
await sql
  .raw(
    `insert into sends (id, order_id, account_id, kind, channel, status, due_at, attempts, created_at, updated_at)
     select 'snd_bsend_' || g, 'ord_bsend_' || g, 'acc_bench_send', 'recipient_video', 'email', 'pending',
            now() - interval '1 second', 0, now(), now()
     from generate_series(1, ${sends}) g`,
  )
  .execute(db);
await sql`analyze`.execute(db);

const services = await createServices(config, logger, database, await compileMessageTemplates());
const connectionsBefore = mail.connectionCount();
const expected = 2 * sends;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const workers = await startWorkers(services);
let lastVideoMs: number | null = null;
/** Sent so far, by kind: counted at the SMTP server, or in `sends` when they go to the outbox. */
async function sentSoFar(): Promise<{ all: number; videos: number }> {
  if (!values.outbox)
    return {
      all: mail.messages.length,
      videos: mail.messages.filter((m) => m.to[0]!.startsWith('recipient')).length,
    };
  const rows = await db
    .selectFrom('sends')
    .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
    .where('status', '=', 'sent')
    .groupBy('kind')
    .execute();
  const count = (kind?: string) => rows.filter((r) => !kind || r.kind === kind).reduce((n, r) => n + Number(r.n), 0);
  return { all: count(), videos: count('recipient_video') };
}
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, values.outbox ? 200 : 50));
  const { all: received, videos } = await sentSoFar();
  if (lastVideoMs === null && videos >= sends) lastVideoMs = performance.now() - started;
  if (received >= expected) break;
  if (performance.now() - started > 30 * 60_000) throw new Error(`only ${received} of ${expected} e-mails in 30 min`);
}
const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const emails = (await sentSoFar()).all;
await workers.close();
const connections = mail.connectionCount() - connectionsBefore;

const unsent = await db
  .selectFrom('sends')
  .select((eb) => eb.fn.countAll<string>().as('n'))
  .where('status', '<>', 'sent')
  .executeTakeFirstOrThrow();
const perRecipient = new Map<string, number>();
for (const message of mail.messages) for (const to of message.to) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
const duplicates = [...perRecipient.values()].filter((n) => n > 1).length;

await services.close();
await database.close();
await scratch?.drop();
await base.stop();
await mail.close();

const result = {
  measurement: 'sending',
  database: database.kind === 'postgres' ? `PostgreSQL${values.fsync ? ' (fsync on)' : ''}` : 'PGlite',
  smtpMaxConnections: config.smtpMaxConnections ?? 'none (one connection per e-mail)',
  sends,
  emails,
  emailsPerSecond: Math.round((emails / elapsedMs) * 1000),
  lastRecipientVideoSeconds: lastVideoMs === null ? null : Number((lastVideoMs / 1000).toFixed(1)),
  drainSeconds: Number((elapsedMs / 1000).toFixed(1)),
  smtpConnections: connections,
  cpuMsPerEmail: Number(((cpu.user + cpu.system) / 1000 / emails).toFixed(2)),
  unsent: Number(unsent.n),
  duplicates,
  loadAverage: { before: Number(loadBefore.toFixed(2)), after: Number(os.loadavg()[0]!.toFixed(2)) },
};
console.log('| Sending | e-mails per second | details |\n|---|---:|---|');
console.log(
  `| Sending from a backlog (${sends.toLocaleString('en-US')} videos + their notes, ${result.database}, ${values.outbox ? 'outbox files' : 'SMTP in-process'}) ` +
    `| ${result.emailsPerSecond} e-mails/s | last video at ${result.lastRecipientVideoSeconds} s, ` +
    `${result.smtpConnections} SMTP connections, ${result.cpuMsPerEmail} ms CPU/e-mail, ` +
    `${result.unsent} unsent, ${result.duplicates} duplicated (load ${result.loadAverage.before} → ${result.loadAverage.after}) |`,
);
if (values.json) console.log(JSON.stringify(result));
if (result.unsent > 0 || result.duplicates > 0) process.exitCode = 1;
