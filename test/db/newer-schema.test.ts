import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrateToLatest, SchemaNewerThanBuildError } from '../../src/db/migrate.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A database migrated by a newer build (a rollback, or an old process restarting during a rolling
 * deploy) is refused in words an operator acts on, and nothing is changed (upgrade probe: Kysely's
 * "corrupted migrations" and its stack).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('refuses a schema newer than this build, naming the migrations it does not know', async () => {
  const db = app.services.database.db;
  await sql`insert into kysely_migration (name, timestamp) values ('999-next-release', '2027-01-01T00:00:00.000Z')`.execute(
    db,
  );
  try {
    const refused = await migrateToLatest(db).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaNewerThanBuildError);
    expect((refused as Error).message).toBe(
      "The database's schema is newer than this build: it has migration 999-next-release, which this version does not know. Run the newer version of Doorstep (or restore the backup taken before upgrading); nothing was changed.",
    );
  } finally {
    await sql`delete from kysely_migration where name = '999-next-release'`.execute(db);
  }
  expect(await migrateToLatest(db)).toEqual([]);
});
