import { sql } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import { trackingKey } from '../carriers/clients/results.ts';
import type { CarrierClient, CarrierPushSubscriptions } from '../carriers/clients/types.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { TrackingRow } from './trackings.ts';

const HOUR_MS = 3_600_000;
/** Renew this long before a subscription lapses, so a slow or failing renewal still has time. */
export const RENEW_BEFORE_MS = 24 * HOUR_MS;
/** A number the carrier refused (not in its system yet, or not a kind it pushes) is offered again later. */
export const REFUSED_RETRY_MS = 6 * HOUR_MS;
/** A failed subscription call (carrier down, budget spent) is tried again soon; polling covers meanwhile. */
export const FAILED_RETRY_MS = 5 * 60_000;
/** Held while a subscription call is in flight, so two processes never subscribe one package at once. */
const CLAIM_MS = 10 * 60_000;
/**
 * An asynchronous subscription job (FedEx AIV) still unfinished this long after it was submitted is
 * given up and submitted again: FedEx names no bound, and a lost job must not leave a package unsubscribed.
 */
export const JOB_GIVE_UP_MS = 2 * HOUR_MS;
/** Most unfinished jobs asked about per tick. */
const JOBS_PER_TICK = 10;

/**
 * Subscribes tracked packages to their carrier's push, in the carrier's batch size, and renews each
 * subscription a day before it lapses (UPS Track Alert: 14 days). A package's history comes from its
 * first poll, which happens whether or not it is subscribed: subscribing adds no Track call.
 * Once subscribed, the poll after the subscription stretches the schedule to the confirmation
 * cadence (push-schedule.ts, applied in TrackingPoller.decide).
 */
export class PushSubscriptions {
  constructor(
    private readonly deps: {
      db: Db;
      clients: Record<CarrierCode, CarrierClient>;
      /** The carriers whose pushes reach us (credentials configured, or the sandbox). */
      enabled: readonly CarrierCode[];
      logger: Logger;
      now: () => Date;
      /** Which numbers the carrier's push takes (UPS Track Alert: 1Z and 1R numbers). */
      accepts?: Partial<Record<CarrierCode, (trackingNumber: string) => boolean>>;
    },
  ) {}

  isEnabled(carrier: CarrierCode): boolean {
    return this.deps.enabled.includes(carrier) && this.deps.clients[carrier].push !== undefined;
  }

  /**
   * One subscription call for up to a batch of due packages; returns how many were subscribed. Where
   * the carrier subscribes by asynchronous job (FedEx AIV), the unfinished jobs are asked about first.
   */
  async subscribeDue(carrier: CarrierCode): Promise<number> {
    const push = this.deps.clients[carrier].push;
    if (!push || !this.isEnabled(carrier)) return 0;
    const settled = push.jobOutcome ? await this.settleJobs(carrier, push) : 0;
    const now = this.deps.now();
    const claimed = await sql<TrackingRow>`
      update trackings set push_renew_at = ${new Date(now.getTime() + CLAIM_MS)}
      where order_id in (
        select order_id from trackings
        where carrier = ${carrier} and next_poll_at is not null
          and (push_renew_at is null or push_renew_at <= ${now})
          and push_job_id is null
          and status is distinct from 'delivered'
        order by push_renew_at nulls first, order_id
        limit ${push.maxBatchSize}
        for update skip locked
      )
      returning *`.execute(this.deps.db);
    if (claimed.rows.length === 0) return settled;
    const accepts = this.deps.accepts?.[carrier] ?? (() => true);
    const offered = claimed.rows.filter((row) => accepts(row.tracking_number));
    const notOffered = claimed.rows.filter((row) => !accepts(row.tracking_number));
    // Numbers the carrier's push does not take are polled as today; looked at again after a lifetime.
    await this.setRenewal(notOffered, new Date(now.getTime() + push.lifetimeMs));
    if (offered.length === 0) return settled;

    let answer: Awaited<ReturnType<CarrierPushSubscriptions['subscribe']>>;
    try {
      answer = await push.subscribe([...new Set(offered.map((row) => row.tracking_number))]);
    } catch (error) {
      this.deps.logger.warn(
        { carrier, packages: offered.length, err: error },
        'push subscription failed; polling continues',
      );
      await this.setRenewal(offered, new Date(now.getTime() + FAILED_RETRY_MS));
      return settled;
    }
    if (answer.job !== undefined) {
      // Not subscribed yet: the job's outcome is asked for on the next tick (settleJobs).
      await this.deps.db
        .updateTable('trackings')
        .set({ push_job_id: answer.job, push_job_at: now, push_renew_at: now })
        .where(
          'order_id',
          'in',
          offered.map((row) => row.order_id),
        )
        .execute();
      this.deps.logger.debug({ carrier, packages: offered.length, job: answer.job }, 'push subscription job submitted');
      return settled;
    }
    return settled + (await this.record(carrier, push, offered, answer, now));
  }

  /**
   * Asks the carrier about unfinished subscription jobs whose packages are due: a finished job is
   * recorded per number like a synchronous answer; a failed one (or one unfinished after
   * JOB_GIVE_UP_MS) is submitted again after FAILED_RETRY_MS; an unfinished one is asked about again
   * on the next tick. Returns how many packages were subscribed.
   */
  private async settleJobs(carrier: CarrierCode, push: CarrierPushSubscriptions): Promise<number> {
    const now = this.deps.now();
    const claimed = await sql<TrackingRow>`
      update trackings set push_renew_at = ${new Date(now.getTime() + CLAIM_MS)}
      where carrier = ${carrier} and push_job_id is not null and push_renew_at <= ${now}
        and push_job_id in (
          select push_job_id from trackings
          where carrier = ${carrier} and push_job_id is not null and push_renew_at <= ${now}
          order by push_job_at, push_job_id
          limit ${JOBS_PER_TICK * push.maxBatchSize}
        )
      returning *`.execute(this.deps.db);
    const jobs = new Map<string, TrackingRow[]>();
    for (const row of claimed.rows) jobs.set(row.push_job_id!, [...(jobs.get(row.push_job_id!) ?? []), row]);
    let subscribed = 0;
    for (const [job, rows] of [...jobs].slice(0, JOBS_PER_TICK)) {
      const submittedAt = Math.min(...rows.map((row) => new Date(row.push_job_at ?? now).getTime()));
      let outcome: Awaited<ReturnType<NonNullable<CarrierPushSubscriptions['jobOutcome']>>>;
      try {
        outcome = await push.jobOutcome!(job);
      } catch (error) {
        this.deps.logger.warn({ carrier, job, err: error }, 'push subscription job status failed; asked again later');
        outcome = { state: 'pending' };
      }
      if (outcome.state === 'pending' && now.getTime() - submittedAt < JOB_GIVE_UP_MS) {
        await this.setRenewal(rows, now);
        continue;
      }
      if (outcome.state !== 'done') {
        const reason = outcome.state === 'failed' ? outcome.reason : `unfinished after ${JOB_GIVE_UP_MS / 60_000} min`;
        this.deps.logger.warn(
          { carrier, job, packages: rows.length, reason },
          'push subscription job failed; submitted again later, polling continues',
        );
        await this.clearJob(rows, new Date(now.getTime() + FAILED_RETRY_MS));
        continue;
      }
      await this.clearJob(rows, now);
      subscribed += await this.record(carrier, push, rows, outcome, now);
    }
    // Jobs beyond this tick's share go back to being due.
    await this.setRenewal(
      [...jobs].slice(JOBS_PER_TICK).flatMap(([, rows]) => rows),
      now,
    );
    return subscribed;
  }

  /** Records the carrier's answer for the offered packages: the subscribed ones until the lifetime, the rest retried. */
  private async record(
    carrier: CarrierCode,
    push: CarrierPushSubscriptions,
    offered: TrackingRow[],
    answer: { subscribed: string[]; refused: string[] },
    now: Date,
  ): Promise<number> {
    // Compared as carriers echo numbers (case, spaces): an async job's report names them its own way.
    const subscribed = new Set(answer.subscribed.map(trackingKey));
    const refusedRows = offered.filter((row) => !subscribed.has(trackingKey(row.tracking_number)));
    await this.setRenewal(refusedRows, new Date(now.getTime() + REFUSED_RETRY_MS));
    const until = new Date(now.getTime() + push.lifetimeMs);
    const renewAt = new Date(until.getTime() - RENEW_BEFORE_MS);
    // The next poll is left as the adaptive schedule set it: it is the look that covers whatever
    // happened before the subscription (Track Alert keeps no history), and it stretches the schedule
    // to the confirmation cadence when it lands (TrackingPoller.decide). A package not yet polled is
    // polled right after subscribing, so its first poll is that look: no extra call.
    const subscribedRows = offered.filter((r) => subscribed.has(trackingKey(r.tracking_number)));
    if (subscribedRows.length > 0)
      await this.deps.db
        .updateTable('trackings')
        .set({ push_subscribed_at: now, push_until: until, push_renew_at: renewAt })
        // Each order with the number it was subscribed under: one restarted under another number
        // meanwhile is not subscribed. One statement for the whole batch (up to 100 packages).
        .where((eb) =>
          eb(
            eb.refTuple('order_id', 'tracking_number'),
            'in',
            subscribedRows.map((row) => eb.tuple(row.order_id, row.tracking_number)),
          ),
        )
        .execute();
    this.deps.logger.debug({ carrier, subscribed: subscribed.size, refused: refusedRows.length }, 'push subscriptions');
    return subscribed.size;
  }

  private async clearJob(rows: TrackingRow[], renewAt: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.deps.db
      .updateTable('trackings')
      .set({ push_job_id: null, push_job_at: null, push_renew_at: renewAt })
      .where(
        'order_id',
        'in',
        rows.map((row) => row.order_id),
      )
      .execute();
  }

  private async setRenewal(rows: TrackingRow[], at: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.deps.db
      .updateTable('trackings')
      .set({ push_renew_at: at })
      .where(
        'order_id',
        'in',
        rows.map((row) => row.order_id),
      )
      .execute();
  }
}
