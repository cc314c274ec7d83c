import type { Kysely } from 'kysely';

/**
 * Uncertain sends resolve themselves where the provider can say (issue 31, item 9); where it cannot,
 * the merchant is alerted once: `sends.attention_at` is when. It is set in the same conditional
 * update that decides to alert (`attention_at is null`), so the store owner's e-mail goes at most
 * once per send, whichever process's reconciler gets there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').addColumn('attention_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sends').dropColumn('attention_at').execute();
}
