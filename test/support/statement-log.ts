import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';
import type { Database } from '../../src/db/schema.ts';
import type { TestDatabase } from './database.ts';

/**
 * Every statement a PGlite database is sent, as the text PostgreSQL receives — `begin` and `commit`
 * included, which a Kysely plugin never sees. Nothing is mocked: the recording sits in front of
 * the real embedded PostgreSQL and passes each statement on.
 */
export class StatementLog {
  readonly statements: string[] = [];
  private recording = false;

  /** The statements `work` sent (every statement of the database meanwhile, whoever sent it). */
  async during(work: () => Promise<unknown>): Promise<string[]> {
    const start = this.statements.length;
    this.recording = true;
    try {
      await work();
    } finally {
      this.recording = false;
    }
    return this.statements.slice(start);
  }

  /** Called for each statement the database receives. */
  record(sql: string): void {
    if (this.recording) this.statements.push(sql);
  }
}

/** Transactions among `statements` (each opens with `begin`). */
export function transactionsIn(statements: readonly string[]): number {
  return statements.filter((sql) => /^begin\b/i.test(sql)).length;
}

/**
 * Commits among `statements`: each transaction's `commit`, and each write sent outside a
 * transaction (its own implicit commit). On PostgreSQL with fsync on, each is a WAL flush — the
 * cost that bounds how many changes a second one server takes.
 */
export function commitsIn(statements: readonly string[]): number {
  let inTransaction = false;
  let commits = 0;
  for (const sql of statements) {
    if (/^begin\b/i.test(sql)) inTransaction = true;
    else if (/^(commit|rollback)\b/i.test(sql)) {
      inTransaction = false;
      if (/^commit/i.test(sql)) commits++;
    } else if (!inTransaction && /^\s*(insert|update|delete|with)\b/i.test(sql)) commits++;
  }
  return commits;
}

/** A fresh in-memory PGlite, migrated, whose statements go through `log`. */
export async function openLoggedPglite(log: StatementLog): Promise<TestDatabase> {
  const pglite = new PGlite();
  await pglite.waitReady;
  const query = pglite.query.bind(pglite);
  pglite.query = ((sql: string, ...rest: unknown[]) => {
    log.record(sql);
    return (query as (sql: string, ...rest: unknown[]) => unknown)(sql, ...rest);
  }) as typeof pglite.query;
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  return {
    db,
    kind: 'pglite',
    url: undefined,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
