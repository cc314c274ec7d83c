import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { TrackingResult } from '../carriers/clients/types.ts';
import type { Db } from '../db/database.ts';
import type { CarrierPushEventsTable } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { CarrierPushOutcome } from '../vocabulary.ts';

type PushEventRow = Selectable<CarrierPushEventsTable>;

/** A stored event whose processing failed (or whose process died) is tried again after this long. */
export const PUSH_EVENT_LEASE_MS = 60_000;

/**
 * Carriers' pushed events: stored raw when they arrive (so the carrier gets its 200 at once, and
 * nothing is lost if we crash), applied after — by the receiving process right away, and by the
 * tracking claim tick for whatever that missed. A duplicate post of one event is not stored twice
 * (unique carrier + event key); a stored event is applied by one process at a time (a lease, taken
 * with SKIP LOCKED) and marked processed after, so it is applied once.
 */
export class PushEvents {
  constructor(
    private readonly deps: {
      db: Db;
      logger: Logger;
      now: () => Date;
      /** How each carrier's stored body reads as a tracking result (the carrier's own parser). */
      readers: Partial<Record<CarrierCode, (body: unknown) => TrackingResult>>;
      /** Records a result: TrackingPoller.applyPushed, the poller's own path. */
      apply: (carrier: CarrierCode, result: TrackingResult) => Promise<CarrierPushOutcome>;
    },
  ) {}

  /** Stores one event; false when the same event was stored before (a resend). */
  async store(event: {
    carrier: CarrierCode;
    trackingNumber: string;
    eventKey: string;
    body: unknown;
  }): Promise<boolean> {
    const result = await this.deps.db
      .insertInto('carrier_push_events')
      .values({
        id: randomUUID(),
        carrier: event.carrier,
        tracking_number: event.trackingNumber,
        event_key: event.eventKey,
        body: JSON.stringify(event.body),
        received_at: this.deps.now(),
      })
      .onConflict((oc) => oc.columns(['carrier', 'event_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return result !== undefined;
  }

  /**
   * Applies stored events not yet processed (of one carrier, or all), oldest first; returns how many
   * were processed.
   */
  async processPending(carrier?: CarrierCode, limit = 100): Promise<number> {
    const now = this.deps.now();
    const leaseUntil = new Date(now.getTime() + PUSH_EVENT_LEASE_MS);
    const claimed = await sql<PushEventRow>`
      update carrier_push_events set lease_until = ${leaseUntil}, attempts = attempts + 1
      where id in (
        select id from carrier_push_events
        where processed_at is null and (lease_until is null or lease_until < ${now})
          and (${carrier ?? null}::text is null or carrier = ${carrier ?? null})
        order by received_at, id
        limit ${limit}
        for update skip locked
      )
      returning *`.execute(this.deps.db);
    // Events of one package in the order they arrived: the poller skips older scans anyway.
    const rows = claimed.rows.sort(
      (a, b) => new Date(a.received_at).getTime() - new Date(b.received_at).getTime() || a.id.localeCompare(b.id),
    );
    let processed = 0;
    for (const row of rows) {
      try {
        const read = this.deps.readers[row.carrier];
        if (!read) throw new Error(`no reader for ${row.carrier} push events`);
        const body: unknown = typeof row.body === 'string' ? JSON.parse(row.body) : row.body;
        const outcome = await this.deps.apply(row.carrier, read(body));
        await this.deps.db
          .updateTable('carrier_push_events')
          .set({ processed_at: this.deps.now(), outcome, lease_until: null })
          .where('id', '=', row.id)
          .execute();
        processed++;
      } catch (error) {
        // The lease lapses and a later tick tries again; the confirmation poll is the safety net.
        this.deps.logger.warn(
          { carrier: row.carrier, pushEventId: row.id, attempts: row.attempts, err: error },
          'applying a pushed carrier event failed',
        );
      }
    }
    return processed;
  }
}
