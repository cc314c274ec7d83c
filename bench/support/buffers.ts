import pg from 'pg';
import { formatNumber } from '../targets.ts';

/**
 * PostgreSQL buffers touched by the service, counted from pg_stat_statements: shared_blks_hit +
 * shared_blks_read summed over every statement run in one database by the service's own user. It
 * is the machine-independent side of the large-table comparison: a request whose hot queries are
 * served by indexes touches a few buffers more at 1,000,000 rows than at a hundred (one or two
 * more btree levels per lookup), while one that reads a table whole touches every page of it, so
 * the count tells the two apart on any machine, however busy.
 *
 * Why pg_stat_statements and not pg_stat_database's blks_hit: a backend flushes its database
 * counters at most once a second and an idle one up to 10 s later (PostgreSQL 15's cumulative
 * statistics), so a delta over a 5 s run would miss part of it; pg_stat_statements adds each
 * statement's buffers when the statement ends. It needs `shared_preload_libraries`
 * (bench/support/postgres.ts); the bench's own queries run as another user so they are not counted.
 */
export interface BufferCounter {
  /** The same database as `databaseUrl`, as the bench's own user (not counted). */
  asBench(databaseUrl: string): string;
  /**
   * Buffers touched so far in `database` by the service's user, in all and per statement (by its
   * normalized text: a statement's queryid differs between databases, its text does not); the
   * difference of two calls is a run's.
   */
  touched(database: string): Promise<Touched>;
  close(): Promise<void>;
}

export interface Touched {
  total: number;
  byStatement: Map<string, number>;
}

export const BENCH_ROLE = 'doorstep_bench';

/** What touched `after` − `before` adds up to: a run's buffers, per statement too. */
export function touchedBetween(before: Touched, after: Touched): Touched {
  const byStatement = new Map<string, number>();
  for (const [query, blocks] of after.byStatement) {
    const delta = blocks - (before.byStatement.get(query) ?? 0);
    if (delta !== 0) byStatement.set(query, delta);
  }
  return { total: after.total - before.total, byStatement };
}

/** Adds a run's per-statement buffers into a running sum. */
export function addTouched(sum: Map<string, number>, run: Touched): void {
  for (const [query, blocks] of run.byStatement) sum.set(query, (sum.get(query) ?? 0) + blocks);
}

/**
 * The statement whose buffers per request grew most from the empty to the large database: where
 * to look first when the work grows with the data. Undefined when nothing grew.
 */
export function largestGrowth(
  empty: { byStatement: ReadonlyMap<string, number>; requests: number },
  large: { byStatement: ReadonlyMap<string, number>; requests: number },
): { query: string; perRequest: number } | undefined {
  if (empty.requests <= 0 || large.requests <= 0) return undefined;
  let best: { query: string; perRequest: number } | undefined;
  for (const query of new Set([...empty.byStatement.keys(), ...large.byStatement.keys()])) {
    const growth =
      (large.byStatement.get(query) ?? 0) / large.requests - (empty.byStatement.get(query) ?? 0) / empty.requests;
    if (growth > 0 && (!best || growth > best.perRequest)) best = { query, perRequest: growth };
  }
  return best;
}

export async function startBufferCounter(serverUrl: string): Promise<BufferCounter> {
  const maintenance = new URL(serverUrl);
  maintenance.pathname = '/postgres';
  const pool = new pg.Pool({ connectionString: maintenance.toString(), max: 1 });
  await pool.query('create extension if not exists pg_stat_statements');
  await pool.query(`do $$ begin
      if not exists (select from pg_roles where rolname = '${BENCH_ROLE}') then create role ${BENCH_ROLE} login superuser; end if;
    end $$`);
  const serviceUser = decodeURIComponent(new URL(serverUrl).username);
  return {
    asBench(databaseUrl) {
      const url = new URL(databaseUrl);
      url.username = BENCH_ROLE;
      return url.toString();
    },
    async touched(database) {
      const { rows } = await pool.query<{ query: string; blocks: string }>(
        `select s.query, sum(s.shared_blks_hit + s.shared_blks_read)::text as blocks
           from pg_stat_statements s
          where s.dbid = (select oid from pg_database where datname = $1)
            and s.userid = (select oid from pg_roles where rolname = $2)
          group by s.query`,
        [database, serviceUser],
      );
      const byStatement = new Map(rows.map((r) => [r.query, Number(r.blocks)]));
      return { total: [...byStatement.values()].reduce((a, b) => a + b, 0), byStatement };
    },
    close: () => pool.end(),
  };
}

/**
 * What the buffers per request say about a scenario's cost at size. An index lookup in a
 * million-row table costs a level or two more of its btree than in a small one; reading any seeded
 * table whole costs all its pages, at least `smallestTablePages`. Growth under a tenth of that is
 * the first kind, whatever the throughput did; past it, the statement that grew most is named.
 */
export function buffersVerdict(
  empty: number,
  large: number,
  smallestTablePages: number,
  grewMost?: { query: string; perRequest: number },
): string {
  if (!Number.isFinite(empty) || !Number.isFinite(large)) return 'buffers per request not measured';
  const growth = large - empty;
  const shown = `PostgreSQL buffers per request ${formatNumber(empty)} empty, ${formatNumber(large)} large (${growth >= 0 ? '+' : ''}${formatNumber(growth)})`;
  if (growth < smallestTablePages / 10)
    return `${shown}, against ${formatNumber(smallestTablePages)} pages in the smallest seeded table: the work per request does not grow with the data`;
  const where = grewMost
    ? `; most of it in \`${oneLine(grewMost.query, 160)}\` (+${formatNumber(grewMost.perRequest)} per request)`
    : '';
  return `${shown}: the work per request grows with the data, as a read of a seeded table (${formatNumber(smallestTablePages)}+ pages) would${where}`;
}

/** A statement's text on one line, cut to `max` characters, for a report cell. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
