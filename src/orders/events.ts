import type { Db } from '../db/database.ts';
import { formatTimestamp } from './serializer.ts';

/** Where a change came from; every timeline entry names one. */
export type EventSource = 'api' | 'shopify' | 'carrier' | 'system';

export interface OrderEventJson {
  id: string;
  type: string;
  source: EventSource;
  data: Record<string, unknown>;
  created_at: string;
}

export async function recordEvents(
  db: Db,
  order: { id: string; account_id: string },
  source: EventSource,
  events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
  at: Date,
): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('order_events')
    .values(events.map((event) => ({ order_id: order.id, account_id: order.account_id, type: event.type, source, data: JSON.stringify(event.data), created_at: at })))
    .execute();
}

export async function listEvents(db: Db, orderId: string): Promise<OrderEventJson[]> {
  const rows = await db.selectFrom('order_events').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  return rows.map((row) => ({
    id: `evt_${row.id}`,
    type: row.type,
    source: row.source as EventSource,
    data: row.data,
    created_at: formatTimestamp(row.created_at),
  }));
}
