import pg from 'pg';

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
  /** Buffers touched so far in `database` by the service's user; a difference of two calls is a run's. */
  touched(database: string): Promise<number>;
  close(): Promise<void>;
}

export const BENCH_ROLE = 'doorstep_bench';

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
      const { rows } = await pool.query<{ blocks: string }>(
        `select coalesce(sum(s.shared_blks_hit + s.shared_blks_read), 0)::text as blocks
           from pg_stat_statements s
          where s.dbid = (select oid from pg_database where datname = $1)
            and s.userid = (select oid from pg_roles where rolname = $2)`,
        [database, serviceUser],
      );
      return Number(rows[0]!.blocks);
    },
    close: () => pool.end(),
  };
}
