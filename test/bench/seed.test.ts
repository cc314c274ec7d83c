import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLargeTables, SEEDED_TABLES, tableSizes, type Execute } from '../../bench/support/seed.ts';
import { unrecordedSentVideos } from '../../src/notifications/sends.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * The bench's large-table seed, at a small size: it must satisfy every constraint of the real
 * schema, and leave nothing a worker would pick up (the constancy run must measure the same work).
 */
describe('seedLargeTables', () => {
  let database: TestDatabase;
  let execute: Execute;
  beforeAll(async () => {
    database = await openTestDatabase();
    execute = async (statement) => (await sql.raw<Record<string, unknown>>(statement).execute(database.db)).rows;
    await seedLargeTables(execute, 500);
  });
  afterAll(async () => database.close());

  it('fills every large table with the asked number of rows', async () => {
    expect(await tableSizes(execute)).toEqual(Object.fromEntries(SEEDED_TABLES.map((table) => [table, 500])));
  });

  it('leaves no work for the workers: nothing due, nothing received, nothing tracked, nothing to repair', async () => {
    const { db } = database;
    const pendingSends = await db.selectFrom('sends').select('id').where('status', '!=', 'sent').execute();
    const received = await db.selectFrom('webhook_receipts').select('id').where('status', '=', 'received').execute();
    const trackings = await db.selectFrom('trackings').select('order_id').execute();
    const outbox = await db.selectFrom('order_outbox').select('seq').execute();
    // What the dispatcher's crash repair would act on: a sent video its order never recorded.
    const unrecorded = await unrecordedSentVideos(db, new Date());
    expect({ pendingSends, received, trackings, outbox, unrecorded }).toEqual({
      unrecorded: [],
      pendingSends: [],
      received: [],
      trackings: [],
      outbox: [],
    });
  });

  it('belongs to another account than any the bench signs in with', async () => {
    const owners = await database.db.selectFrom('orders').select('account_id').distinct().execute();
    expect(owners).toEqual([{ account_id: 'acc_seed' }]);
  });

  it('refuses a row count that is not a positive integer', async () => {
    await expect(seedLargeTables(execute, 0)).rejects.toThrow(RangeError);
  });
});
