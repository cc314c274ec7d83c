import pg from 'pg';
import { expect, it } from 'vitest';
import { isDependencyUnavailable } from '../../src/db/unavailable.ts';
import { usingRealPostgres } from '../support/database.ts';
import { messagingTestAppForFile, type MessagingTestApp } from '../support/messaging-test-app.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';

/**
 * A message the dispatcher claimed just before the database went away goes out as soon as it answers
 * again, not when the reconciler finds the claim older than SEND_CLAIM_TIMEOUT_MS (two minutes, then
 * up to a minute for the reconciler's next run). "The database went away" is what PostgreSQL does to
 * the dispatcher's connection: it is terminated (pg_terminate_backend) while the dispatcher waits on the order's row,
 * which the test holds locked — so the claim is committed and nothing after it is.
 *
 * Real PostgreSQL only: the embedded PGlite has one connection, so there is no second one to hold the
 * row, and no server to terminate a connection.
 */
let app: TestApp;
let store: TestAccount;
let mail: MessagingTestApp['mail'];

messagingTestAppForFile('Outage Store', (started) => ({ app, store, mail } = started));

it.skipIf(!usingRealPostgres)(
  'gives a claimed message back on the first run after the database returns, and sends it then',
  async () => {
    const recipient = 'outage-recipient@example.com';
    const order = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: recipient })).body as {
      id: string;
    };
    await app.services.orders.markRecorded(order.id, { durationTenths: 100 });
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    const { dispatcher, database } = app.services;
    const sendStatus = async () =>
      (
        await database.db
          .selectFrom('sends')
          .select('status')
          .where('order_id', '=', order.id)
          .where('kind', '=', 'recipient_video')
          .executeTakeFirstOrThrow()
      ).status;

    const holder = new pg.Client({ connectionString: app.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from orders where id = $1 for update', [order.id]);
      const run = dispatcher.dispatchDue(100);
      const outcome = run.then(
        () => 'finished',
        (error: unknown) => (isDependencyUnavailable(error) ? 'database unavailable' : String(error)),
      );
      // Claimed, then waiting for the order's row: the dispatcher's connection is the one waiting on the lock.
      const waiting = await eventually(
        async () => {
          // Inside a transaction the statistics views keep their first snapshot: clear it each time.
          await holder.query('select pg_stat_clear_snapshot()');
          const { rows } = await holder.query<{ pid: number }>(
            `select pid from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
          );
          return rows[0]?.pid;
        },
        10_000,
        'the dispatcher to wait on the order',
      );
      expect(await sendStatus()).toBe('claimed');
      await holder.query('select pg_terminate_backend($1)', [waiting]);
      expect(await outcome).toBe('database unavailable');
      await holder.query('rollback');
    } finally {
      await holder.end();
    }

    // The database answers again: the next run gives the claim back and sends it, minutes before the reconciler would.
    expect(await sendStatus()).toBe('claimed');
    await dispatcher.dispatchDue(100);
    expect(await sendStatus()).toBe('sent');
    expect(mail.messages.filter((m) => m.to.includes(recipient))).toHaveLength(1);
  },
);
