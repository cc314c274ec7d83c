import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../errors.ts';

/**
 * Customer data exports (made by customers/data_request, compliance/topics.ts) of one Doorstep account:
 * read by /v1/shopify/data-exports (API credentials) and the embedded admin (session token).
 */
export async function listDataExports(db: Db, accountId: string) {
  return db
    .selectFrom('shopify_data_exports')
    .select(['id', 'shop', 'data_request_id', 'customer_id', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

/** One export's JSON, or NotFoundError (another account's export is not found either). */
export async function getDataExport(db: Db, accountId: string, id: string): Promise<Record<string, unknown>> {
  const row = await db
    .selectFrom('shopify_data_exports')
    .select('data')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No data export with id "${id}".`);
  return row.data;
}

/** `GET /v1/shopify/data-exports`: the account's latest 100 exports, newest first (no customer data). */
export const dataExportListJson = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      shop: z.string().meta({ examples: ['demo.myshopify.com'] }),
      data_request_id: z.string().nullable(),
      customer_id: z.string().nullable(),
      created_at: z.iso.datetime(),
    }),
  ),
});

/** `GET /v1/shopify/data-exports/{id}`: the export itself, as topics.ts assembled it. */
export const dataExportJson = z
  .record(z.string(), z.unknown())
  .meta({ description: "The customer's data Doorstep holds, as answered to Shopify's customers/data_request." });
