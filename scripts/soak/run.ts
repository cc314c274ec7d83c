/**
 * The soak itself (issue 13): the whole system on real processes under steady traffic with faults
 * injected, then a check that nothing was lost, nothing was sent twice and memory stayed flat.
 * Prints one block of totals; exits 1 on any loss, duplicate, 500, story that could not finish,
 * process that died by itself, memory growth beyond the tolerance, or a wait past its deadline.
 * Run by the supervisor, scripts/soak.ts (`npm run soak`), which holds the hard deadline and stops
 * whatever this leaves behind. See docs/operations.md ("Soak").
 */
// First: in the stand-in child of `--inject-stall fork` it blocks before anything else is done.
import './pre-exec-stand-in.ts';
import fs from 'node:fs';
import pg from 'pg';
import { withDeadline } from '../../src/process/deadline.ts';
import { SoakClient } from './client.ts';
import { recordCustody } from './custody.ts';
import { FAULT_KINDS, runFaults } from './faults.ts';
import { parseSoakOptions } from './options.ts';
import { startSystem } from './system.ts';
import { prepareTraffic, runTraffic } from './traffic.ts';
import { judgeDelivery, judgeMemory, type MemorySeries, type Received } from './verdict.ts';

const { seconds, concurrency, faultEveryMs, settleMs, tolerance, injectStall } = parseSoakOptions(
  process.argv.slice(2),
);
/** After traffic stops, how long the stories in flight get to finish (a request retries for 120 s at most). */
const FINISH_STORIES_MS = 180_000;

const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[soak ${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
/** What the run is doing now, logged and written down for the supervisor's deadline message. */
const phase = (what: string) => {
  recordCustody({ phase: what });
  log(what);
};

phase('starting the system');
const system = await startSystem({ workers: 2, log, injectStall });
// Whatever happens, every process the soak started is stopped (a throw still exits 1), and a wait
// past its deadline fails the run with what it waited for.
const exitCode = await soak()
  .catch((error: unknown) => {
    log(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  })
  .finally(() => {
    phase('stopping the system');
    return system.stop();
  });
process.exit(exitCode);

async function soak(): Promise<number> {
  // No query of the soak's waits for ever: a PostgreSQL that stops answering fails the run.
  const db = new pg.Pool({
    connectionString: system.databaseUrl,
    max: 3,
    connectionTimeoutMillis: 10_000,
    query_timeout: 30_000,
  });
  try {
    phase('preparing the account and the shop');
    const { auth, shop } = await prepareTraffic(system.env);
    const client = new SoakClient();
    let stopped = false;
    const trafficStarted = Date.now();

    // RSS of the web process and of every worker incarnation, every 2 s, from /proc.
    const series = new Map<number, MemorySeries>();
    const sample = () => {
      const procs = [
        { name: 'web', pid: system.web.child.pid! },
        ...system.workers.map((w, slot) => ({ name: `worker ${slot} (pid ${w.child.pid})`, pid: w.child.pid! })),
      ];
      for (const { name, pid } of procs) {
        const rss = readRss(pid);
        if (rss === null) continue;
        const entry = series.get(pid) ?? { name, samples: [], endRss: rss };
        if (!stopped) entry.samples.push({ atMs: Date.now() - trafficStarted, rss });
        entry.endRss = rss;
        series.set(pid, entry);
      }
    };
    sample();
    const sampler = setInterval(sample, 2000);

    phase(`traffic for ${seconds} s on ${concurrency} loops, a fault every ${faultEveryMs / 1000} s`);
    const trafficRun = runTraffic({ base: system.base, auth, shop, db, client, concurrency, stopped: () => stopped });
    const faultsRun = runFaults({
      system,
      everyMs: faultEveryMs,
      redisDownMs: 3000,
      carrierPeriodMs: 8000,
      stopped: () => stopped,
      log: phase,
    });
    // A fault that could not be injected or undone (a redis-server that does not answer after its
    // restart) ends the run at once, with what it waited for.
    // (runFaults itself returns only once `stopped` is set, after this.)
    await Promise.race([sleep(seconds * 1000), faultsRun]);
    stopped = true;
    phase('traffic stops; finishing the stories in flight');
    const [traffic, faults] = await withDeadline(
      Promise.all([trafficRun, faultsRun]),
      FINISH_STORIES_MS,
      'the stories in flight and the last fault to finish after traffic stopped',
    );
    const trafficMs = Date.now() - trafficStarted;

    phase(`settling: waiting (at most ${settleMs / 1000} s) for ${traffic.expected.length} orders to be sent`);
    const ids = traffic.expected.map((order) => order.orderId);
    const settleStarted = Date.now();
    let settled = false;
    while (Date.now() - settleStarted < settleMs) {
      const { rows } = await db.query<{ unsent: string; in_flight: string }>(
        // An order whose gift send is uncertain never gets sent_at: it is settled, held for the merchant.
        `select (select count(*) from orders o where o.id = any($1) and o.sent_at is null
                   and not exists (select 1 from sends s where s.order_id = o.id
                                   and s.kind = 'recipient_video' and s.status = 'uncertain')) as unsent,
                (select count(*) from sends where order_id = any($1) and status in ('pending', 'claimed', 'sending')) as in_flight`,
        [ids],
      );
      if (Number(rows[0]!.unsent) === 0 && Number(rows[0]!.in_flight) === 0) {
        settled = true;
        break;
      }
      await sleep(1000);
    }
    const settleSeconds = (Date.now() - settleStarted) / 1000;
    log(settled ? `settled in ${settleSeconds.toFixed(1)} s` : `NOT settled after ${settleSeconds.toFixed(0)} s`);

    clearInterval(sampler);
    phase('judging');
    // The end: the median of three samples a second apart once nothing is left to do.
    const ends = new Map<number, number[]>();
    for (let i = 0; i < 3; i++) {
      for (const pid of series.keys()) {
        const rss = readRss(pid);
        if (rss !== null) ends.set(pid, [...(ends.get(pid) ?? []), rss]);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // Judged: the processes that lived through the whole run (the web and the workers never killed).
    const living = [system.web, ...system.workers].map((proc) => proc.child.pid!);
    const memory = [...series.entries()]
      .filter(([pid, entry]) => living.includes(pid) && ends.has(pid) && (entry.samples[0]?.atMs ?? Infinity) < 10_000)
      .map(([pid, entry]) => {
        const end = ends.get(pid)!.sort((a, b) => a - b)[1] ?? entry.endRss;
        return judgeMemory({ ...entry, endRss: end }, trafficMs, tolerance);
      });

    const sentRows = await db.query<{ id: string; sent_at: Date | null }>(
      'select id, sent_at from orders where id = any($1)',
      [ids],
    );
    const sentAt = new Map(sentRows.rows.map((row) => [row.id, row.sent_at ? row.sent_at.toISOString() : null]));
    const sendStatuses = await db.query<{ status: string; count: string }>(
      'select status, count(*) from sends where order_id = any($1) group by status order by status',
      [ids],
    );
    const received: Received[] = [
      ...system.mail.messages.flatMap((message) => message.to.map((to) => ({ to, subject: subjectOf(message.raw) }))),
      ...system.sms.messages.map((message) => ({ to: message.to, subject: message.body })),
    ];
    const uncertain = await db.query<{ destination: string }>(
      "select destination from sends where order_id = any($1) and status = 'uncertain' and destination is not null",
      [ids],
    );
    const delivery = judgeDelivery(
      traffic.expected,
      received,
      sentAt,
      new Set(uncertain.rows.map((row) => row.destination)),
    );
    const crashes = system.crashes();

    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    const byKind = new Map<string, number>();
    for (const order of traffic.expected) byKind.set(order.kind, (byKind.get(order.kind) ?? 0) + 1);
    const totalFaults = [...faults.values()].reduce((a, b) => a + b, 0);
    const lines = [
      '',
      `Soak: ${seconds} s of traffic (${concurrency} loops), settled ${settled ? `in ${settleSeconds.toFixed(1)} s` : 'NOT (timed out)'}`,
      `  orders          ${delivery.orders} (${[...byKind].map(([kind, n]) => `${n} ${kind}`).join('; ')})`,
      `  webhooks        ${traffic.webhooks.sent} signed (${traffic.webhooks.redelivered} redelivered, ${traffic.webhooks.duplicateAnswers} answered duplicate)`,
      `  faults          ${totalFaults} (${FAULT_KINDS.map((kind) => `${kind} ${faults.get(kind)}`).join(', ')})`,
      `  messages        ${delivery.recipientMessages} to recipients (${system.mail.messages.length} e-mails, ${system.sms.messages.length} SMS in all), ${delivery.senderMessages} to senders`,
      `  sends           ${sendStatuses.rows.map((row) => `${row.status} ${row.count}`).join(', ')}`,
      `  HTTP answers    ${[...client.statuses]
        .sort()
        .map(([status, n]) => `${status}: ${n}`)
        .join(', ')}`,
      `  lost            ${delivery.lost.length}`,
      `  duplicated      ${delivery.duplicated.length}`,
      `  held uncertain  ${delivery.held.length} (a worker died during the provider call and the message did not arrive: held for the merchant's resend by design)`,
      `  500s            ${client.serverErrors.length}`,
      `  stories failed  ${traffic.storyFailures.length}`,
      `  crashes         ${crashes.length}`,
      ...memory.map(
        (m) =>
          `  memory ${m.name.padEnd(24)} ${mb(m.startRss)} → ${mb(m.endRss)}${m.grew ? '  GREW beyond tolerance' : ''}`,
      ),
      `  (memory: RSS, the median of the first ${Math.round(Math.min(60, trafficMs / 2000))} s of traffic → settled end; tolerance +${tolerance.ratio * 100}% or +${mb(tolerance.bytes)}, whichever is larger)`,
    ];
    const details = [
      ...delivery.lost.map((line) => `lost: ${line}`),
      ...delivery.duplicated.map((line) => `duplicated: ${line}`),
      ...delivery.held.map((line) => `held uncertain: ${line}`),
      ...client.serverErrors.map((line) => `500: ${line}`),
      ...traffic.storyFailures.map((line) => `story failed: ${line}`),
      ...crashes.map((line) => `crash: ${line}`),
    ];
    for (const line of details.slice(0, 40)) log(line);
    if (details.length > 40) log(`… and ${details.length - 40} more`);
    const pass =
      settled &&
      delivery.orders > 0 &&
      delivery.lost.length === 0 &&
      delivery.duplicated.length === 0 &&
      client.serverErrors.length === 0 &&
      traffic.storyFailures.length === 0 &&
      crashes.length === 0 &&
      memory.every((m) => !m.grew);
    lines.push(`  result          ${pass ? 'PASS' : 'FAIL'}`, '');
    process.stdout.write(lines.join('\n'));
    return pass ? 0 : 1;
  } finally {
    await db.end();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readRss(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function subjectOf(raw: string): string {
  const headers = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return /^Subject: (.*)$/im.exec(headers)?.[1]?.trim() ?? '';
}
