import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderOutboxTable } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import type { EventSource } from '../vocabulary.ts';
import type { DeliveredOrderEvent, OrderEvent, OrderEventSubscriber } from './order-events.ts';
import type { OrderRow } from './serializer.ts';

type OutboxRow = Selectable<OrderOutboxTable>;

export interface OrderOutboxDeps {
  db: Db;
  logger: Logger;
  now: () => Date;
}

export type HandleOutcome = 'handled' | 'not_due' | 'failed';

/** What an order change recorded, for `deliver` once it has committed. */
export interface RecordedEvents {
  /** Outbox rows to hand to their subscribers. */
  seqs: number[];
  /** After-commit hooks of reactions already made inside the change (inline subscribers). */
  afterCommit: Array<{ subscriber: string; event: DeliveredOrderEvent; run: () => void }>;
}

/** A failing handler is retried after 1 s, 2 s, 4 s … at most 5 minutes apart, for as long as it fails. */
export function outboxRetryDelayMs(attempts: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 5 * 60_000);
}

/**
 * The one way an order change reaches other modules (transactional outbox).
 *
 * `record` runs inside the order change's transaction and writes one row per event and subscriber.
 * Right after the commit, the process that made the change hands those rows to their subscribers
 * (`deliver`), so a reaction normally lands within the same request. Whatever that misses — a
 * crash, a failing handler, another process's rows — the relay (`deliverDue`, run every second by
 * the workers) hands over later. Each row is handled in its own transaction that also deletes it,
 * so a reaction commits exactly once, and one subscriber sees one order's events in order.
 */
export class OrderOutbox {
  private readonly subscribers = new Map<string, OrderEventSubscriber>();

  constructor(private readonly deps: OrderOutboxDeps) {}

  /** Every process registers the same subscribers at start, before it changes any order. */
  subscribe(subscriber: OrderEventSubscriber): void {
    if (this.subscribers.has(subscriber.name))
      throw new Error(`Order event subscriber "${subscriber.name}" is registered twice.`);
    this.subscribers.set(subscriber.name, subscriber);
  }

  /**
   * Inside the change's transaction: hands each event to the subscribers that handle it inline
   * (`OrderEventSubscriber.inline`), and writes one outbox row per other subscriber that handles it.
   * Returns what `deliver` does after the commit.
   */
  async record(
    trx: Db,
    order: OrderRow,
    source: EventSource,
    events: readonly OrderEvent[],
    at: Date,
  ): Promise<RecordedEvents> {
    const recorded: RecordedEvents = { seqs: [], afterCommit: [] };
    const rows = [];
    for (const event of events) {
      const { type, ...data } = event;
      for (const subscriber of this.subscribers.values()) {
        if (!subscriber.events.includes(type) || !(subscriber.wants?.(event) ?? true)) continue;
        if (type === 'order.created' && subscriber.inline?.includes(type)) {
          const delivered: DeliveredOrderEvent = {
            seq: 0,
            orderId: order.id,
            accountId: order.account_id,
            source,
            at,
            event,
          };
          await subscriber.handle(trx, order, delivered);
          const hook = subscriber.afterCommit;
          if (hook)
            recorded.afterCommit.push({ subscriber: subscriber.name, event: delivered, run: () => hook(delivered) });
          continue;
        }
        rows.push({
          subscriber: subscriber.name,
          order_id: order.id,
          account_id: order.account_id,
          type,
          data: JSON.stringify(data),
          source,
          created_at: at,
          available_at: at,
        });
      }
    }
    if (rows.length === 0) return recorded;
    const inserted = await trx.insertInto('order_outbox').values(rows).returning('seq').execute();
    recorded.seqs.push(...inserted.map((row) => row.seq));
    return recorded;
  }

  /**
   * After the commit: runs the inline reactions' after-commit hooks, then hands the just-committed
   * rows to their subscribers. Never throws: the change they describe is already committed, and a
   * row that is not handled here stays for the relay.
   */
  async deliver(recorded: RecordedEvents): Promise<void> {
    for (const hook of recorded.afterCommit)
      this.runAfterCommit(hook.run, {
        subscriber: hook.subscriber,
        order_id: hook.event.orderId,
        type: hook.event.event.type,
      });
    for (const seq of recorded.seqs) await this.handle(seq);
  }

  /** The relay: hands due rows to their subscribers, oldest first. Returns how many were handled. */
  async deliverDue(limit = 200): Promise<number> {
    const names = [...this.subscribers.keys()];
    if (names.length === 0) return 0;
    const now = this.deps.now();
    // Only each order's oldest waiting row per subscriber is ready; later ones wait their turn.
    const due = await dueOutboxQuery(this.deps.db, names, now, limit).execute();
    let handled = 0;
    for (const { seq } of due) if ((await this.handle(seq)) === 'handled') handled++;
    return handled;
  }

  /** Rows still waiting, oldest first (operators, tests). */
  async waiting(
    limit = 100,
  ): Promise<
    Array<Pick<OutboxRow, 'seq' | 'subscriber' | 'order_id' | 'type' | 'attempts' | 'last_error' | 'available_at'>>
  > {
    return this.deps.db
      .selectFrom('order_outbox')
      .select(['seq', 'subscriber', 'order_id', 'type', 'attempts', 'last_error', 'available_at'])
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  private async handle(seq: number): Promise<HandleOutcome> {
    let row: OutboxRow | undefined;
    let after: (() => void) | undefined;
    try {
      const handled = await this.deps.db.transaction().execute(async (trx) => {
        // SKIP LOCKED: another process handling this row right now wins; we do not wait for it.
        row = await outboxRowToHandleQuery(trx, seq, this.deps.now()).executeTakeFirst();
        if (!row) return false;
        const subscriber = this.subscribers.get(row.subscriber);
        if (!subscriber) return false;
        const earlier = await earlierOutboxRowQuery(trx, row).executeTakeFirst();
        if (earlier) return false;
        // FOR SHARE: the order cannot change while the subscriber decides on it.
        const order = await trx
          .selectFrom('orders')
          .selectAll()
          .where('id', '=', row.order_id)
          .forShare()
          .executeTakeFirstOrThrow();
        const delivered = toDelivered(row);
        await subscriber.handle(trx, order, delivered);
        await trx.deleteFrom('order_outbox').where('seq', '=', row.seq).execute();
        if (subscriber.afterCommit) after = () => subscriber.afterCommit?.(delivered);
        return true;
      });
      if (handled && after) this.runAfterCommit(after, row);
      return handled ? 'handled' : 'not_due';
    } catch (error) {
      await this.recordFailure(seq, row, error);
      return 'failed';
    }
  }

  /** The reaction is committed whatever happens here: a failing hook is logged, never retried. */
  private runAfterCommit(
    after: () => void,
    row: Pick<OutboxRow, 'subscriber' | 'order_id' | 'type'> | undefined,
  ): void {
    try {
      after();
    } catch (error) {
      this.deps.logger.warn(
        { subscriber: row?.subscriber, orderId: row?.order_id, eventType: row?.type, err: error },
        'an order event after-commit hook failed',
      );
    }
  }

  private async recordFailure(seq: number, row: OutboxRow | undefined, error: unknown): Promise<void> {
    const attempts = (row?.attempts ?? 0) + 1;
    const retryAt = new Date(this.deps.now().getTime() + outboxRetryDelayMs(attempts));
    const message = error instanceof Error ? error.message : String(error);
    this.deps.logger.warn(
      { seq, subscriber: row?.subscriber, orderId: row?.order_id, eventType: row?.type, attempts, retryAt, err: error },
      'an order event handler failed; it will be tried again',
    );
    try {
      await this.deps.db
        .updateTable('order_outbox')
        .set({ attempts, available_at: retryAt, last_error: message.slice(0, 1_000) })
        .where('seq', '=', seq)
        .execute();
    } catch (updateError) {
      // The database itself is away: the row stays due and the relay tries it again.
      this.deps.logger.warn({ seq, err: updateError }, 'could not record the order event failure');
    }
  }
}

function toDelivered(row: OutboxRow): DeliveredOrderEvent {
  return {
    seq: row.seq,
    orderId: row.order_id,
    accountId: row.account_id,
    source: row.source,
    at: row.created_at,
    event: { type: row.type, ...row.data } as OrderEvent,
  };
}

/*
 * The relay's queries, exported so that test/db/hot-query-plans.test.ts explains the text run here.
 */

/** The relay's due rows: only each order's oldest waiting row per subscriber is ready. */
export function dueOutboxQuery(db: Db, subscribers: readonly string[], now: Date, limit: number) {
  return db
    .selectFrom('order_outbox as o')
    .select('o.seq')
    .where('o.subscriber', 'in', subscribers)
    .where('o.available_at', '<=', now)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('order_outbox as earlier')
            .select('earlier.seq')
            .whereRef('earlier.subscriber', '=', 'o.subscriber')
            .whereRef('earlier.order_id', '=', 'o.order_id')
            .whereRef('earlier.seq', '<', 'o.seq'),
        ),
      ),
    )
    .orderBy('o.seq')
    .limit(limit);
}

/** SKIP LOCKED: another process handling this row right now wins; we do not wait for it. */
export function outboxRowToHandleQuery(trx: Db, seq: number, now: Date) {
  return trx
    .selectFrom('order_outbox')
    .selectAll()
    .where('seq', '=', seq)
    .where('available_at', '<=', now)
    .forUpdate()
    .skipLocked();
}

/** A row of the same order and subscriber waiting before this one (then this one waits too). */
export function earlierOutboxRowQuery(trx: Db, row: Pick<OutboxRow, 'subscriber' | 'order_id' | 'seq'>) {
  return trx
    .selectFrom('order_outbox')
    .select('seq')
    .where('subscriber', '=', row.subscriber)
    .where('order_id', '=', row.order_id)
    .where('seq', '<', row.seq)
    .limit(1);
}
