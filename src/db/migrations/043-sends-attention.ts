import { sql, type Kysely } from 'kysely';

/**
 * Uncertain sends resolve themselves where the provider can say (issue 31, item 9); where it cannot,
 * the merchant is alerted once: `sends.attention_at` is when. It is set in the same conditional
 * update that decides to alert (`attention_at is null`), so the store owner's e-mail goes at most
 * once per send, whichever process's reconciler gets there.
 *
 * `sends_unresolved`: the reconciler reads the uncertain sends not yet put to the merchant every
 * minute; they are a handful among millions of rows, so the read follows them, not the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').addColumn('attention_at', 'timestamptz').execute();
  await sql`create index sends_unresolved on sends (claimed_at) where status = 'uncertain' and attention_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists sends_unresolved`.execute(db);
  await db.schema.alterTable('sends').dropColumn('attention_at').execute();
}
