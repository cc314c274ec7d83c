import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HOT_TABLES } from '../../src/db/migrations/032-vacuum-hot-tables.ts';
import { openTestDatabase, type TestDatabase } from '../support/database.ts';
import { forFile } from '../support/for-file.ts';

/**
 * Migration 032: the tables whose newest rows change all day are vacuumed after 1,000 + 1% of their
 * rows changed, not PostgreSQL's 50 + 20% (which lets a large table's hot rows drag hundreds of
 * thousands of dead versions along; docs/scaling.md).
 */
let database: TestDatabase;
forFile(
  () => openTestDatabase(),
  (opened) => (database = opened),
  (opened) => opened.close(),
);

describe('autovacuum of the hot tables', () => {
  it.each(HOT_TABLES)('%s is vacuumed after 1,000 + 1%% of its rows changed', async (table) => {
    const { rows } = await sql<{ reloptions: string[] | null }>`
      select reloptions from pg_class where relname = ${table} and relkind = 'r'`.execute(database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.reloptions).toEqual(
      expect.arrayContaining(['autovacuum_vacuum_scale_factor=0.01', 'autovacuum_vacuum_threshold=1000']),
    );
  });
});
