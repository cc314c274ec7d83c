/** Runs one SQL statement and returns its rows (pg's pool in the bench, Kysely's `sql.raw` in the test). */
export type Execute = (statement: string) => Promise<Array<Record<string, unknown>>>;

/** The tables the constancy run fills; each gets `rows` rows. */
export const SEEDED_TABLES = [
  'orders',
  'order_events',
  'sends',
  'shops',
  'webhook_receipts',
  'shopify_order_links',
  'shopify_fulfillments',
] as const;

/**
 * Fills the large tables straight in SQL (`INSERT … SELECT generate_series`), the way a year of
 * other merchants' data would sit beside the bench's own rows: everything belongs to another
 * account and its shops, honours every constraint and unique index, and is finished business
 * (delivered, sent, processed) so no worker picks any of it up. Then VACUUM ANALYZE, so the planner sees
 * the sizes it would see in production.
 */
export async function seedLargeTables(execute: Execute, rows: number): Promise<void> {
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError(`rows must be a positive integer, got ${rows}`);
  // The count is written into the statements (an integer, checked above): PGlite's raw SQL takes no parameters.
  const q = execute;
  await execute(
    `insert into accounts (id, name, app_id, api_key_hash) values ('acc_seed', 'Other merchants', 'app_seed', repeat('0', 64)) on conflict do nothing`,
  );
  // Half delivered and their video sent a while ago; half recorded and waiting for a package that
  // is not tracked here (no number), their sender's record link long sent. Every row consistent
  // with the others: a sent video always recorded on its order, or the crash-repair reconciler
  // (notifications' recordUnrecordedSends) would set out to "repair" half the seed.
  await q(`
    insert into orders (id, account_id, uuid, status, name, email, recipient_name, recipient_email, send_method,
                        send_trigger, carrier, tracking_number, delivered, delivered_at, video_title,
                        video_processed, price, created_at, updated_at, sent_at)
    select 'ord_seed_' || g, 'acc_seed', gen_random_uuid(), case when g % 2 = 0 then 'delivered' else 'recorded' end,
           'Seed Sender', 'sender' || g || '@example.com', 'Seed Recipient', 'recipient' || g || '@example.com',
           'email', 'package', case when g % 2 = 0 then 'ups' end,
           case when g % 2 = 0 then '1ZSEED' || lpad(g::text, 12, '0') end, g % 2 = 0,
           case when g % 2 = 0 then now() - interval '30 days' end, '', true, 1200,
           now() - interval '60 days' + g * interval '1 second', now() - interval '30 days',
           case when g % 2 = 0 then now() - interval '30 days' end
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into order_events (order_id, account_id, type, source, data, created_at)
    select 'ord_seed_' || g, 'acc_seed', 'order.created', 'api', '{}'::jsonb, now() - interval '60 days'
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into sends (id, order_id, account_id, kind, channel, status, due_at, attempts, destination, sent_at,
                       order_recorded, created_at, updated_at)
    select 'snd_seed_' || g, 'ord_seed_' || g, 'acc_seed',
           case when g % 2 = 0 then 'recipient_video' else 'sender_record_link' end, 'email', 'sent',
           now() - interval '30 days', 1,
           case when g % 2 = 0 then 'recipient' || g || '@example.com' else 'sender' || g || '@example.com' end,
           now() - interval '30 days', g % 2 = 0, now() - interval '30 days', now() - interval '30 days'
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into shops (domain, account_id, installed_at, updated_at)
    select 'seed-' || g || '.myshopify.com', 'acc_seed', now() - interval '90 days', now() - interval '90 days'
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into webhook_receipts (webhook_id, topic, shop, raw_body, status, attempts, received_at, processed_at)
    select 'seed-' || g, 'orders/create', 'seed-' || (g % 1000) || '.myshopify.com', '{}', 'processed', 1,
           now() - interval '60 days', now() - interval '60 days'
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into shopify_order_links (shop, shopify_order_id, line_item_id, order_id, account_id, created_at)
    select 'seed-' || (g % 1000) || '.myshopify.com', (6000000000000 + g)::text, (7000000000000 + g)::text,
           'ord_seed_' || g, 'acc_seed', now() - interval '60 days'
    from generate_series(1, ${rows}) g`);
  await q(`
    insert into shopify_fulfillments (shop, fulfillment_id, shopify_order_id, status, tracking_company,
                                      tracking_numbers, shipment_status, updated_at)
    select 'seed-' || (g % 1000) || '.myshopify.com', (8000000000000 + g)::text, (6000000000000 + g)::text,
           'success', 'UPS', jsonb_build_array('1ZSEED' || lpad(g::text, 12, '0')), 'delivered', now() - interval '30 days'
    from generate_series(1, ${rows}) g`);
  // VACUUM as well as ANALYZE: a year of finished business has long been vacuumed (visibility map
  // set, hint bits written). Left to autovacuum, seven freshly inserted million-row tables are
  // vacuumed during the first measurements after the seed, which then share the machine with it.
  await execute('vacuum analyze');
}

/** Rows per table, to state in the report what the run really measured against. */
export async function tableSizes(execute: Execute): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const table of SEEDED_TABLES) {
    const [row] = await execute(`select count(*)::text as n from ${table}`);
    sizes[table] = Number(row!.n);
  }
  return sizes;
}
