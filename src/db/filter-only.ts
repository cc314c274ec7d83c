import { sql, type RawBuilder } from 'kysely';

/**
 * A column's value as an expression no index serves (`column || ''`, text columns only), for a query
 * that finds its row by primary key and only checks this column — the tenant of an order, the status
 * a message must still be in. Compared bare, the column lets the planner serve the query from an
 * index led by it (or a partial index its value implies) whenever the statistics make that index look
 * nearly empty: a merchant who joined after the last ANALYZE, the few messages in flight. It then
 * reads every row the index holds for that value, and every dead version not yet vacuumed, to find
 * the one the primary key names (test/db/primary-key-plans.test.ts, test/db/hot-query-plans.test.ts).
 */
export function filterOnly(column: string): RawBuilder<string> {
  return sql<string>`${sql.ref(column)} || ''`;
}
