import { z } from 'zod';
import { createAccount, listAccounts } from '../accounts/accounts.ts';
import type { Db } from '../db/database.ts';
import { shopifyMonthBill } from '../billing/shopify-billing.ts';
import { monthlyStatement } from '../billing/statements.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { NotFoundError } from '../errors.ts';
import { formatTimestamp } from '../orders/serializer.ts';
import { parseBody } from '../validation.ts';
import { shopifyAdminCommands } from '../shopify/admin/commands.ts';
import type { ShopifyServices } from '../shopify/index.ts';
import type { TokenCipher } from '../shopify/auth/token-cipher.ts';

export interface AdminExtras {
  /** The running app's Shopify module (admin socket): lets `webhooks.replay` process at once. */
  shopify?: ShopifyServices;
  /** Base of record_url / playback_url in printed orders. */
  publicUrl?: string;
  /**
   * The token cipher, for the commands that need it (only `shopify.rotate-token-key`): asked for when
   * such a command runs, so other commands never create or read the key file.
   */
  tokenCipher?: () => TokenCipher;
}

/**
 * Operator commands, shared by the CLI (direct database access) and the admin socket (through the
 * running server). Each takes and returns plain JSON so both paths give the same answers.
 */
export function adminCommands(db: Db, extras: AdminExtras = {}) {
  const handlers: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
    'accounts.create': async (args) => {
      const input = parseBody(
        z.object({ name: z.string(), revenueShareBps: z.number().nullable().optional() }),
        args,
        'account',
      );
      const { account, apiKey } = await createAccount(db, {
        name: input.name,
        revenueShareBps: input.revenueShareBps ?? null,
      });
      return {
        id: account.id,
        name: account.name,
        app_id: account.appId,
        api_key: apiKey,
        revenue_share_bps: account.revenueShareBps,
      };
    },
    'accounts.list': async () =>
      (await listAccounts(db)).map((a) => ({
        id: a.id,
        name: a.name,
        app_id: a.appId,
        revenue_share_bps: a.revenueShareBps,
        created_at: formatTimestamp(a.createdAt),
      })),
    migrate: async () => ({ applied: await migrateToLatest(db) }),
    'billing.statement': async (args) => {
      const input = parseBody(z.object({ account: z.string().min(1), month: z.string() }), args, 'statement request');
      // Operators name accounts by app id (what `accounts list` prints) or by id.
      const account = await db
        .selectFrom('accounts')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', input.account), eb('app_id', '=', input.account)]))
        .executeTakeFirst();
      if (!account) throw new NotFoundError(`No account "${input.account}" (give its app id or id).`);
      return monthlyStatement(db, account.id, input.month, new Date());
    },
    'billing.shop': async (args) => {
      const input = parseBody(z.object({ shop: z.string().min(1), month: z.string() }), args, 'bill request');
      return shopifyMonthBill(db, input.shop, input.month);
    },
    ...shopifyAdminCommands(db, extras.shopify, extras.publicUrl ?? 'http://localhost:3000', extras.tokenCipher),
  };
  return {
    async run(command: string, args: Record<string, unknown>): Promise<unknown> {
      const handler = handlers[command];
      if (!handler) throw new NotFoundError(`Unknown admin command "${command}".`);
      return handler(args);
    },
  };
}

export type AdminCommands = ReturnType<typeof adminCommands>;
