import { CompiledQuery } from 'kysely';
import type { Db } from '../../src/db/database.ts';

/** One node of `EXPLAIN (FORMAT JSON)`, the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The plan PostgreSQL (or PGlite) would run for the very text a query builder produces. */
export async function planOf(db: Db, query: { compile(): CompiledQuery } | CompiledQuery): Promise<PlanNode> {
  const compiled = 'compile' in query ? query.compile() : query;
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const cell = result.rows[0]!['QUERY PLAN'];
  // pg parses the json column; PGlite may hand it back as text.
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
  return plan[0]!.Plan;
}

/** The node and every node under it. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/** The indexes the plan reads, top node first. */
export function indexesIn(plan: PlanNode): string[] {
  return planNodes(plan).flatMap((node) => (node['Index Name'] ? [node['Index Name']] : []));
}

/** The plan as indented lines, for a failing assertion's message. */
export function describePlan(plan: PlanNode, depth = 0): string {
  const self = `${'  '.repeat(depth)}${plan['Node Type']}${plan['Relation Name'] ? ` on ${plan['Relation Name']}` : ''}${plan['Index Name'] ? ` using ${plan['Index Name']}` : ''}`;
  return [self, ...(plan.Plans ?? []).map((child) => describePlan(child, depth + 1))].join('\n');
}
