import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** Row types of every table, as Kysely sees them. Migrations in ./migrations are the source of truth. */

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface AccountsTable {
  id: string;
  name: string;
  app_id: string;
  /** SHA-256 of the API key, hex. Keys are 256-bit random, so a fast hash is enough (no dictionary to attack). */
  api_key_hash: string;
  revenue_share_bps: number | null;
  created_at: CreatedAt;
}

export interface OrdersTable {
  id: string;
  /** Insertion order; used only for stable cursor pagination, never exposed. */
  seq: Generated<number>;
  account_id: string;
  uuid: string;
  status: string;
  name: string;
  email: string;
  recipient_name: string;
  recipient_email: string | null;
  recipient_phone: string | null;
  send_method: string;
  send_trigger: string;
  send_on: Timestamp | null;
  carrier: string | null;
  tracking_number: string | null;
  delivered: boolean;
  video_title: string;
  video_duration_tenths: Generated<number>;
  video_processed: Generated<boolean>;
  price: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  recorded_at: Timestamp | null;
  delivered_at: Timestamp | null;
  sent_at: Timestamp | null;
  viewed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  /** Soft delete: a deleted order is gone from the API but kept for billing and audit. */
  deleted_at: Timestamp | null;
}

export interface OrderEventsTable {
  id: Generated<number>;
  order_id: string;
  account_id: string;
  type: string;
  source: string;
  data: JSONColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  order_id: string;
  /** The warning the first response carried, so a replay answers the same. */
  warning: string | null;
  created_at: CreatedAt;
}

export interface TrackingsTable {
  order_id: string;
  account_id: string;
  carrier: string;
  tracking_number: string;
  /** The carrier's normalized status at the last successful poll; null before the first. */
  status: string | null;
  description: string | null;
  started_at: Timestamp;
  last_polled_at: Timestamp | null;
  last_changed_at: Timestamp | null;
  last_event_at: Timestamp | null;
  delivered_at: Timestamp | null;
  estimated_delivery_at: Timestamp | null;
  estimated_window_start_at: Timestamp | null;
  consecutive_errors: Generated<number>;
  rate_limited_until: Timestamp | null;
  poll_count: Generated<number>;
  /** Null when tracking has stopped; `stopped_reason` says why. */
  next_poll_at: Timestamp | null;
  stopped_reason: string | null;
  /** Set while a claimed batch is in flight; a stale batch job whose token no longer matches does nothing. */
  lease_token: string | null;
  lease_until: Timestamp | null;
  updated_at: Timestamp;
}

export interface Database {
  trackings: TrackingsTable;
  accounts: AccountsTable;
  orders: OrdersTable;
  order_events: OrderEventsTable;
  idempotency_keys: IdempotencyKeysTable;
}
