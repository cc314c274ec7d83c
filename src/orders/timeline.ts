import { sql, type Insertable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderEventsTable } from '../db/schema.ts';
import type { EventSource, TimelineEventType } from '../vocabulary.ts';
import type { TimelineEntryJson } from './response-schemas.ts';
import { formatTimestamp } from './serializer.ts';

/** One line of an order's timeline, as the service and other modules record it. */
export interface TimelineEntry {
  type: TimelineEventType;
  data: Record<string, unknown>;
}

/** The API's shape of an entry: its schema is in response-schemas.ts (the OpenAPI document's source). */
export type { TimelineEntryJson };

/**
 * Appends entries to an order's timeline. The orders module owns `order_events`; other modules
 * (tracking, notifications, videos, Shopify) record what they did to an order through this one
 * function, inside their own transaction when they have one.
 */
export async function recordTimeline(
  db: Db,
  order: { id: string; account_id: string },
  source: EventSource,
  entries: readonly TimelineEntry[],
  at: Date,
): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('order_events')
    .values(timelineRows(order, source, entries, at))
    .execute();
}

/** The `order_events` rows of timeline entries: for `recordTimeline`, or a statement that writes them beside other work. */
export function timelineRows(
  order: { id: string; account_id: string },
  source: EventSource,
  entries: readonly TimelineEntry[],
  at: Date,
): Insertable<OrderEventsTable>[] {
  return entries.map((entry) => ({
    order_id: order.id,
    account_id: order.account_id,
    type: entry.type,
    source,
    data: JSON.stringify(entry.data),
    created_at: at,
  }));
}

/** The timeline, oldest first (by insertion). */
export async function listTimeline(db: Db, orderId: string): Promise<TimelineEntryJson[]> {
  const rows = await timelineQuery(db, orderId).execute();
  return rows.map(timelineEntryJson);
}

export function timelineQuery(db: Db, orderId: string) {
  return db.selectFrom('order_events').selectAll().where('order_id', '=', orderId).orderBy('id');
}

/**
 * The timeline as one JSON array column of a query on `orders` (`orders.id` in scope), oldest
 * first: the order and its timeline in one round trip. The order is json_agg's own ORDER BY, not a
 * sorted subquery's (whose order an aggregate does not promise to keep).
 */
export function timelineJsonColumn() {
  return sql<TimelineRowJson[]>`(
    select coalesce(json_agg(json_build_object(
      'id', e.id, 'type', e.type, 'source', e.source, 'data', e.data, 'created_at', e.created_at
    ) order by e.id), '[]'::json)
    from order_events e where e.order_id = orders.id
  )`;
}

/** One `order_events` row as `timelineJsonColumn` returns it: JSON, so the time is a string. */
export interface TimelineRowJson {
  id: number;
  type: TimelineEventType;
  source: EventSource;
  data: Record<string, unknown>;
  created_at: string | Date;
}

export function timelineEntryJson(row: TimelineRowJson): TimelineEntryJson {
  return {
    id: `evt_${row.id}`,
    type: row.type,
    source: row.source,
    data: inContractTimestamps(row.data) as Record<string, unknown>,
    created_at: formatTimestamp(new Date(row.created_at)),
  };
}

const ISO_WITH_FRACTION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d+Z$/;

/**
 * Instants inside an entry's data in the contract's `YYYY-MM-DDTHH:MM:SSZ`, like every other timestamp
 * of the API. The data is stored as its recorder wrote it (`JSON.stringify` of a Date keeps the
 * milliseconds, and rows written so far have them), so the API answer is where they go, as
 * formatTimestamp drops them (truncated, not rounded).
 */
function inContractTimestamps(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(ISO_WITH_FRACTION, '$1Z');
  if (Array.isArray(value)) return value.map(inContractTimestamps);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inContractTimestamps(item)]));
  return value;
}
