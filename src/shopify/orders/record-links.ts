import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { recordUrl } from '../../orders/serializer.ts';
import type { OrderService } from '../../orders/service.ts';
import type { ExtensionSession } from './extension-token.ts';

/**
 * How long after the video order was made a *guest* (a token without `sub`) may read its record
 * links. The thank-you page renders right after checkout and our orders/create webhook normally
 * lands within seconds; two hours also covers a slow webhook and a shopper who comes back to the
 * tab. After that only a logged-in customer who owns the order is answered. Why a limit at all:
 * Shopify order ids are sequential and guessable, any buyer of the shop can get a session token, and
 * a record URL is a capability (whoever holds it can record the message) — an open answer would
 * hand out other people's recipient names and record links.
 */
export const GUEST_LINK_WINDOW_MS = 2 * 60 * 60_000;

export interface RecordLinkMessage {
  recipient_name: string;
  record_url: string;
  recorded: boolean;
}

/** `pending`: nothing to show yet (or nothing this buyer may see — the two look the same on purpose). */
export type RecordLinksAnswer = { status: 'pending' } | { status: 'ready'; messages: RecordLinkMessage[] };

export interface LinkVisibilityInput {
  linkCustomerId: string | null;
  linkCreatedAt: Date;
}

/**
 * The ownership rule. A logged-in customer (`sub`) sees only links of their own orders; a guest
 * sees links made within the last GUEST_LINK_WINDOW_MS.
 */
export function linkVisibleTo(session: ExtensionSession, link: LinkVisibilityInput, now: Date): boolean {
  if (session.customerId !== null) return link.linkCustomerId === session.customerId;
  const age = now.getTime() - link.linkCreatedAt.getTime();
  return age <= GUEST_LINK_WINDOW_MS;
}

/** `123`, `gid://shopify/Order/123` or `gid://shopify/OrderIdentity/123` → `123`; null when it is none of these. */
export function parseShopifyOrderId(value: string): string | null {
  return /^(?:gid:\/\/shopify\/(?:Order|OrderIdentity)\/)?(\d{1,20})$/.exec(value.trim())?.[1] ?? null;
}

export interface RecordLinksDeps {
  db: Db;
  orders: OrderService;
  publicUrl: string;
  now: () => Date;
}

/**
 * The video messages of one Shopify order as the buyer's thank-you / order-status page shows them:
 * one per video line item, with the record URL, or marked recorded. Cancelled and deleted (erased)
 * orders are left out.
 */
export async function recordLinksForOrder(
  deps: RecordLinksDeps,
  session: ExtensionSession,
  shopifyOrderId: string,
): Promise<RecordLinksAnswer> {
  const now = deps.now();
  const links = await deps.db
    .selectFrom('shopify_order_links')
    .select(['order_id', 'account_id', 'customer_id', 'created_at'])
    .where('shop', '=', session.shop)
    .where('shopify_order_id', '=', shopifyOrderId)
    .orderBy('line_item_id')
    .execute();
  const visible = links.filter((link) =>
    linkVisibleTo(session, { linkCustomerId: link.customer_id, linkCreatedAt: link.created_at }, now),
  );
  if (visible.length === 0) return { status: 'pending' };

  const messages: RecordLinkMessage[] = [];
  for (const link of visible) {
    let order;
    try {
      order = await deps.orders.get(link.account_id, link.order_id);
    } catch (error) {
      if (error instanceof NotFoundError) continue; // deleted or erased
      throw error;
    }
    if (order.status === 'cancelled') continue;
    messages.push({
      recipient_name: order.recipient_name,
      record_url: recordUrl(deps.publicUrl, order.uuid),
      recorded: order.recorded_at !== null,
    });
  }
  return { status: 'ready', messages };
}
