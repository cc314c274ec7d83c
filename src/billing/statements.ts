import { findAccount } from '../accounts/accounts.ts';
import type { Db } from '../db/database.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { z } from 'zod';
import { timestampJson } from '../orders/response-schemas.ts';
import { formatTimestamp } from '../orders/serializer.ts';

/**
 * Monthly revenue-share statements for accounts billed outside Shopify (docs/design.md §1,
 * Billing): the statement for month M sums the `price` of the account's orders whose video was
 * **sent** in M (UTC), and the account's share of it. Orders deleted or erased later stay on it:
 * the rows are kept for billing. Orders billed through Shopify (every order of a Shopify shop's
 * account, and any order with a Shopify usage charge) are left out and only counted: they are on
 * the merchant's Shopify bill, and must not be billed twice.
 */

export interface StatementPeriod {
  /** `YYYY-MM` */
  month: string;
  start: Date;
  /** Exclusive: the first instant of the next month. */
  end: Date;
}

/**
 * Statement months start at the Unix epoch (nothing is billed before it) and end where the next month's
 * first instant still has a four-digit year (the API's timestamp format).
 */
const FIRST_STATEMENT_MONTH = '1970-01';
const LAST_STATEMENT_MONTH = '9999-11';

/** `2026-11` → [2026-11-01T00:00:00Z, 2026-12-01T00:00:00Z). Throws ValidationError otherwise. */
export function statementPeriod(month: string): StatementPeriod {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match || month < FIRST_STATEMENT_MONTH || month > LAST_STATEMENT_MONTH)
    throw new ValidationError('The statement month is not valid.', {
      month: `must be a month like 2026-11 (YYYY-MM), from ${FIRST_STATEMENT_MONTH} to ${LAST_STATEMENT_MONTH}`,
    });
  const year = Number(match[1]);
  const monthIndex = Number(match[2]) - 1;
  // Date.UTC reads years 0–99 as 1900–1999; the range above keeps them out (they once summed the wrong century).
  return { month, start: new Date(Date.UTC(year, monthIndex, 1)), end: new Date(Date.UTC(year, monthIndex + 1, 1)) };
}

/**
 * The share of a total, in whole cents: `total × bps / 10 000`, rounded half up, once per
 * statement (not per order, so many small orders do not each round in the same direction).
 * Integer arithmetic throughout (BigInt: no float ever touches money).
 */
export function revenueShareCents(totalCents: number, shareBps: number): number {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0) throw new RangeError('totalCents must be a whole amount');
  if (!Number.isInteger(shareBps) || shareBps < 0 || shareBps > 10_000) throw new RangeError('shareBps out of range');
  return Number((BigInt(totalCents) * BigInt(shareBps) + 5_000n) / 10_000n);
}

export const statementLineJson = z.object({
  order_id: z.string(),
  price: z.int().min(0).nullable().meta({ description: 'Integer cents; null is billed as 0.' }),
  sent_at: timestampJson,
});
export type StatementLine = z.output<typeof statementLineJson>;

/** `GET /v1/billing/statements/{YYYY-MM}`: its type comes from this schema, as does the OpenAPI document's. */
export const statementJson = z.object({
  account_id: z.string(),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/)
    .meta({ examples: ['2026-11'] }),
  period_start: timestampJson,
  period_end: timestampJson.meta({ description: 'Exclusive: the first instant of the next month.' }),
  status: z
    .enum(['open', 'closed'])
    .meta({ description: '`open` while the month is still running: the numbers can grow.' }),
  revenue_share_bps: z
    .int()
    .min(0)
    .max(10_000)
    .nullable()
    .meta({ description: 'Basis points; null: the account is not on the revenue-share plan (nothing is owed).' }),
  orders_sent: z.int().min(0),
  orders_without_price: z.int().min(0).meta({ description: 'Sent orders with no price set: counted, billed as 0.' }),
  total_price_cents: z.int().min(0),
  share_cents: z.int().min(0),
  rounding: z.string(),
  orders_billed_through_shopify: z
    .int()
    .min(0)
    .meta({ description: 'Orders sent in the month but billed through Shopify: not in the sums or lines.' }),
  exclusions: z.string(),
  lines: z.array(statementLineJson),
});
export type Statement = z.output<typeof statementJson>;

export const EXCLUSION_RULE =
  "orders billed through Shopify (a Shopify shop's account's orders, or orders with a Shopify usage charge) are left out: they are on the shop's Shopify bill";

export const ROUNDING_RULE =
  'share = total_price_cents × revenue_share_bps / 10000, rounded half up once per statement';

export async function monthlyStatement(db: Db, accountId: string, month: string, now: Date): Promise<Statement> {
  const period = statementPeriod(month);
  const account = await findAccount(db, accountId);
  if (!account) throw new NotFoundError(`No account with id "${accountId}".`);
  // A Shopify shop's account: every sent order gets a Shopify usage charge (billing's subscriber).
  const shopAccount = await db
    .selectFrom('shops')
    .select('domain')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  // Deleted and erased orders included on purpose: billing keeps their rows.
  const sent = await db
    .selectFrom('orders')
    .select(['id', 'price', 'sent_at'])
    .select(({ exists, selectFrom }) =>
      exists(
        selectFrom('shopify_usage_charges')
          .select('order_id')
          .whereRef('shopify_usage_charges.order_id', '=', 'orders.id'),
      ).as('shopify_charged'),
    )
    .where('account_id', '=', accountId)
    .where('sent_at', '>=', period.start)
    .where('sent_at', '<', period.end)
    .orderBy('sent_at')
    .orderBy('id')
    .execute();
  const rows = sent.filter((row) => !shopAccount && !row.shopify_charged);
  const total = rows.reduce((sum, row) => sum + (row.price ?? 0), 0);
  const share = account.revenueShareBps;
  return {
    account_id: accountId,
    month: period.month,
    period_start: formatTimestamp(period.start),
    period_end: formatTimestamp(period.end),
    status: now < period.end ? 'open' : 'closed',
    revenue_share_bps: share,
    orders_sent: rows.length,
    orders_without_price: rows.filter((row) => row.price === null).length,
    total_price_cents: total,
    share_cents: share === null ? 0 : revenueShareCents(total, share),
    rounding: ROUNDING_RULE,
    orders_billed_through_shopify: sent.length - rows.length,
    exclusions: EXCLUSION_RULE,
    lines: rows.map((row) => ({ order_id: row.id, price: row.price, sent_at: formatTimestamp(row.sent_at!) })),
  };
}
