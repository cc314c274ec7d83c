import type { Db } from '../db/database.ts';
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
    .values(
      entries.map((entry) => ({
        order_id: order.id,
        account_id: order.account_id,
        type: entry.type,
        source,
        data: JSON.stringify(entry.data),
        created_at: at,
      })),
    )
    .execute();
}

/** The timeline, oldest first (by insertion). */
export async function listTimeline(db: Db, orderId: string): Promise<TimelineEntryJson[]> {
  const rows = await db.selectFrom('order_events').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  return rows.map((row) => ({
    id: `evt_${row.id}`,
    type: row.type,
    source: row.source,
    data: row.data,
    created_at: formatTimestamp(row.created_at),
  }));
}
