import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { IntakeLoad } from '../../src/shopify/intake/intake-priority.ts';
import {
  INTAKE_REPORTS,
  IntakeReportBoard,
  OtherIntakes,
  startIntakeReporter,
} from '../../src/shopify/intake/intake-reports.ts';
import { createRedisConnection } from '../../src/redis/connection.ts';
import { startTestAppWithWorkers } from '../support/app-with-workers.ts';
import { startTestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

/**
 * Issue 31, production topology: worker processes yield to the web processes' webhook intake, which
 * reports itself to Redis (src/shopify/intake/intake-reports.ts). On the test's real Redis.
 */
const redis = createRedisConnection(inject('redisUrl'), 'worker');
afterAll(() => redis.disconnect());

const queueing = { webhooks: 300, inFlight: 9, utilization: 0.97 };

describe('the intake reports board', () => {
  it("gives a reader the other processes' fresh reports, never its own", async () => {
    const prefix = `test-${randomUUID()}`;
    const web = new IntakeReportBoard(redis, prefix);
    const worker = new IntakeReportBoard(redis, prefix);
    await web.report(queueing);
    await worker.report({ webhooks: 1, inFlight: 0.1, utilization: 0.2 });
    expect(await worker.othersFresh()).toEqual([queueing]);
    expect(await web.othersFresh()).toEqual([{ webhooks: 1, inFlight: 0.1, utilization: 0.2 }]);
  });

  it('skips a report past freshMs and removes one past forgetMs, or one that is not a report', async () => {
    const prefix = `test-${randomUUID()}`;
    let now = 1_000_000;
    const web = new IntakeReportBoard(redis, prefix, () => now);
    const reader = new IntakeReportBoard(redis, prefix, () => now);
    await web.report(queueing);
    await redis.hset(`${prefix}:shopify-intake-reports`, 'garbage', '{"at":"yesterday"}');
    now += INTAKE_REPORTS.freshMs + 1;
    expect(await reader.othersFresh()).toEqual([]);
    expect(await redis.hkeys(`${prefix}:shopify-intake-reports`)).toEqual([web.processId]);
    now += INTAKE_REPORTS.forgetMs;
    expect(await reader.othersFresh()).toEqual([]);
    expect(await redis.exists(`${prefix}:shopify-intake-reports`)).toBe(0);
  });

  it('expires with the last report, and withdraws a report on request', async () => {
    const prefix = `test-${randomUUID()}`;
    const web = new IntakeReportBoard(redis, prefix);
    await web.report(queueing);
    const ttl = await redis.pttl(`${prefix}:shopify-intake-reports`);
    expect(ttl).toBeGreaterThan(INTAKE_REPORTS.forgetMs - 5_000);
    expect(ttl).toBeLessThanOrEqual(INTAKE_REPORTS.forgetMs);
    await web.withdraw();
    expect(await redis.exists(`${prefix}:shopify-intake-reports`)).toBe(0);
  });
});

describe('a web process reporting its intake', () => {
  it('reports the intervals in which webhooks arrived, and withdraws its report when it stops', async () => {
    const prefix = `test-${randomUUID()}`;
    const intake = new IntakeLoad();
    const reporter = startIntakeReporter(new IntakeReportBoard(redis, prefix), intake);
    const reader = new IntakeReportBoard(redis, prefix);
    try {
      // Nothing arrives: nothing is reported.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await reader.othersFresh()).toEqual([]);
      await Promise.all(Array.from({ length: 5 }, () => intake.track(() => new Promise((r) => setTimeout(r, 30)))));
      const [report] = await eventually(
        async () => {
          const reports = await reader.othersFresh();
          return reports.length > 0 ? reports : undefined;
        },
        5_000,
        'the intake report',
      );
      expect(report!.webhooks).toBe(5);
      expect(report!.inFlight).toBeGreaterThan(0);
    } finally {
      await reporter.stop();
    }
    expect(await redis.exists(`${prefix}:shopify-intake-reports`)).toBe(0);
  });
});

describe("a worker process yielding to the web processes' intake", () => {
  it('steps its webhook processing down to none while a web process reports queueing, and back up once it stops', async () => {
    const prefix = `test-${randomUUID()}`;
    const { app, close } = await startTestAppWithWorkers({ env: { QUEUE_PREFIX: prefix } });
    const web = new IntakeReportBoard(redis, prefix);
    const level = async () => (await app.services.metrics.webhookProcessingLevel.get()).values[0]?.value;
    const max = app.services.config.shopifyWebhookConcurrency;
    let reporting = true;
    const reports = (async () => {
      while (reporting) {
        await web.report(queueing);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      expect(max).toBeGreaterThan(1);
      await eventually(async () => ((await level()) === 0 ? true : undefined), 10_000, 'processing to step aside');
      reporting = false;
      await reports;
      await web.withdraw();
      expect(
        await eventually(async () => ((await level()) === max ? true : undefined), 10_000, 'processing to come back'),
      ).toBe(true);
    } finally {
      reporting = false;
      await reports;
      await close();
    }
  });

  it('shows no processing level in a process whose workers do not run (a web process)', async () => {
    const app = await startTestApp();
    try {
      expect((await app.services.metrics.webhookProcessingLevel.get()).values).toEqual([]);
      expect(await app.services.metrics.text()).not.toMatch(/^doorstep_webhook_processing_level/m);
    } finally {
      await app.close();
    }
  });

  it('reads nothing once stopped, and fails open when Redis cannot answer', async () => {
    const prefix = `test-${randomUUID()}`;
    const web = new IntakeReportBoard(redis, prefix);
    await web.report(queueing);
    const broken = createRedisConnection('redis://127.0.0.1:1', 'producer');
    broken.on('error', () => undefined);
    const others = new OtherIntakes(new IntakeReportBoard(broken, prefix));
    const working = new OtherIntakes(new IntakeReportBoard(redis, prefix));
    try {
      await others.refresh();
      expect(others.intervals()).toEqual([]);
      await working.refresh();
      expect(working.intervals()).toEqual([queueing]);
    } finally {
      await others.stop();
      await working.stop();
      broken.disconnect();
    }
    expect(working.intervals()).toEqual([]);
  });
});
