import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';
import { formatTimestamp, serializeOrder } from '../../orders/serializer.ts';
import { parseBody } from '../../validation.ts';
import type { ShopifyServices } from '../services.ts';
import { parseShopDomain, registerShop, shopSettingsJson, shopSettingsSchema, updateShopSettings } from '../shops.ts';
import { resealShopTokens } from '../auth/stored-tokens.ts';
import type { TokenCipher } from '../auth/token-cipher.ts';

/**
 * Shopify operator commands for src/admin/commands.ts. `shopify` (the running app's Shopify module)
 * is present when the command runs inside the server (admin socket); from the CLI with a direct
 * database connection it is absent, and a replay is left to the reconciler.
 */
export function shopifyAdminCommands(
  db: Db,
  shopify: ShopifyServices | undefined,
  publicUrl: string,
  tokenCipher: (() => TokenCipher) | undefined,
) {
  return {
    /**
     * Re-encrypts every shop's tokens under the current TOKEN_ENCRYPTION_KEY (values under previous
     * keys and plain text of earlier versions alike): afterwards TOKEN_ENCRYPTION_PREVIOUS_KEYS may be
     * emptied. Shops whose tokens no key opens are listed (names and key ids, never a token).
     */
    'shopify.rotate-token-key': async () => {
      if (!tokenCipher) throw new Error('These admin commands were built without the token cipher.');
      const cipher = tokenCipher();
      const result = await resealShopTokens(db, cipher);
      return {
        key_id: cipher.currentKeyId,
        changed: result.changed,
        already_current: result.alreadyCurrent,
        unreadable: result.unreadable,
      };
    },
    'shops.add': async (args: Record<string, unknown>) => {
      const input = parseBody(z.object({ shop: z.string(), rotateKey: z.boolean().optional() }), args, 'shop');
      const registered = await registerShop(db, parseShopDomain(input.shop), { rotateKey: input.rotateKey ?? false });
      return {
        shop: registered.shop.domain,
        account_id: registered.shop.account_id,
        app_id: registered.appId,
        api_key: registered.apiKey,
        created: registered.created,
      };
    },
    'shops.settings': async (args: Record<string, unknown>) => {
      const { shop, ...settings } = args;
      const update = parseBody(shopSettingsSchema, settings, 'settings change');
      return shopSettingsJson(await updateShopSettings(db, parseShopDomain(shop), update, new Date()));
    },
    'webhooks.list': async (args: Record<string, unknown>) => {
      const input = parseBody(
        z.object({
          status: z.enum(['received', 'processed', 'failed']).optional(),
          limit: z.number().int().min(1).max(500).optional(),
        }),
        args,
        'filter',
      );
      let query = db
        .selectFrom('webhook_receipts')
        .select(['webhook_id', 'topic', 'shop', 'status', 'error', 'note', 'attempts', 'received_at', 'processed_at'])
        .orderBy('id', 'desc')
        .limit(input.limit ?? 50);
      if (input.status) query = query.where('status', '=', input.status);
      return (await query.execute()).map((row) => ({
        ...row,
        // The API's timestamp form, whole seconds (billing probe: milliseconds here only).
        received_at: formatTimestamp(row.received_at),
        processed_at: row.processed_at ? formatTimestamp(row.processed_at) : null,
      }));
    },
    'webhooks.replay': async (args: Record<string, unknown>) => {
      const { id } = parseBody(z.object({ id: z.string().min(1) }), args, 'replay');
      const receipt = await db
        .selectFrom('webhook_receipts')
        .select(['webhook_id', 'status'])
        .where('webhook_id', '=', id)
        .executeTakeFirst();
      if (!receipt) throw new NotFoundError(`No webhook receipt with id "${id}".`);
      if (shopify) {
        try {
          const outcome = await shopify.processing.process(id, { replay: true });
          return { id, status: 'processed', note: outcome.note ?? null };
        } catch (error) {
          return { id, status: 'failed', error: (error as Error).message };
        }
      }
      await db
        .updateTable('webhook_receipts')
        .set({ status: 'received', error: null })
        .where('webhook_id', '=', id)
        .execute();
      return {
        id,
        status: 'received',
        note: 'queued for processing by the app (its reconciler re-enqueues received webhooks)',
      };
    },
    'shopify.orders': async (args: Record<string, unknown>) => {
      const input = parseBody(z.object({ shop: z.string(), shopifyOrderId: z.string().optional() }), args, 'query');
      let query = db
        .selectFrom('shopify_order_links')
        .innerJoin('orders', 'orders.id', 'shopify_order_links.order_id')
        .selectAll('orders')
        .select([
          'shopify_order_links.shopify_order_id',
          'shopify_order_links.line_item_id',
          'shopify_order_links.notice',
        ])
        .where('shopify_order_links.shop', '=', parseShopDomain(input.shop));
      if (input.shopifyOrderId) query = query.where('shopify_order_links.shopify_order_id', '=', input.shopifyOrderId);
      const rows = await query.orderBy('orders.seq').execute();
      return rows.map(({ shopify_order_id, line_item_id, notice, ...order }) => ({
        shopify_order_id,
        line_item_id,
        notice,
        order: serializeOrder(order, publicUrl),
      }));
    },
  };
}
