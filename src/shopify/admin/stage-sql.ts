import { sql, type RawBuilder } from 'kysely';
import type { OrderStage } from './stage.ts';

/**
 * The rules of `deriveStage` (stage.ts) as SQL conditions on a row of `orders`, in the same order.
 * An order is in a stage when that stage's condition holds and no earlier one does. Every condition
 * is NOT NULL by construction (EXISTS, NOT NULL columns), so `not` never drops a row.
 */
const recipientSend = (statuses: string) =>
  sql`exists (select 1 from sends s where s.order_id = orders.id and s.kind = 'recipient_video' and s.status in (${sql.raw(statuses)}))`;

const sendProblem = sql`(${recipientSend("'failed', 'uncertain'")} and not ${recipientSend("'pending', 'claimed', 'sending'")})`;

const videoFailed = sql`(not orders.video_processed and exists (
  select 1 from videos v where v.order_id = orders.id and v.status = 'failed'
  and not exists (select 1 from videos w where w.order_id = orders.id and w.seq > v.seq)))`;

const linkNotice = (type: string) =>
  sql`exists (select 1 from shopify_order_links l where l.order_id = orders.id and l.notice like ${`${type.replace(/_/g, '\\_')}:%`})`;

const linked = sql`exists (select 1 from shopify_order_links l where l.order_id = orders.id)`;

const trackingStopped = sql`exists (select 1 from trackings t where t.order_id = orders.id and t.stopped_reason in ('expired', 'returned'))`;

const deliveryBlocked = sql`(orders.send_trigger = 'package' and not orders.delivered and (${linkNotice('delivery.blocked')} or ${trackingStopped}))`;

const RULES: ReadonlyArray<readonly [OrderStage, RawBuilder<unknown>]> = [
  ['viewed', sql`orders.viewed_at is not null`],
  // lostAfterSending: a sent order whose sends all failed since (a bounce) needs attention instead.
  ['sent', sql`(orders.sent_at is not null and not (${sendProblem} and not ${recipientSend("'sent'")}))`],
  ['cancelled', sql`orders.status = 'cancelled'`],
  ['needs_attention', sql`(${sendProblem} or ${videoFailed} or ${deliveryBlocked})`],
  ['needs_recipient', sql`(orders.recipient_email is null and orders.recipient_phone is null)`],
  ['awaiting_video', sql`not orders.video_processed`],
  ['scheduled', sql`orders.send_trigger <> 'package'`],
  ['delivered', sql`orders.delivered`],
  ['waiting_on_shopify', sql`(${linkNotice('delivery.via_shopify')} or (${linked} and orders.carrier is null))`],
  ['tracking', sql`true`],
];

/** The condition that selects exactly the orders `deriveStage` puts in `stage`. */
export function stageCondition(stage: OrderStage): RawBuilder<boolean> {
  const index = RULES.findIndex(([name]) => name === stage);
  if (index < 0) throw new Error(`no SQL rule for stage ${stage}`);
  const earlier = RULES.slice(0, index).map(([, condition]) => sql`not ${condition}`);
  return sql<boolean>`(${sql.join([RULES[index]![1], ...earlier], sql` and `)})`;
}
