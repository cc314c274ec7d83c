import { expect, it } from 'vitest';
import { validOrder, type TestApp } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { inboxAppForFile, type InboxApp } from './inbox-app.ts';

let app: TestApp;
let mail: InboxApp['mail'];

inboxAppForFile({ sandboxPollIntervalMs: 200 }, { dispatchEveryMs: 200 }, (started) => ({ app, mail } = started));

it('carrier reports delivery → within seconds exactly one e-mail reaches the recipient', async () => {
  const store = await app.createAccount();
  const order = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: 'gift@example.com' }))
    .body;
  await app.services.orders.markRecorded(order.id, { durationTenths: 80 });
  await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'usps', tracking_number: '9400111899223817240935' });

  const deliveredAt = Date.now();
  await fetch(`${app.baseUrl}/sandbox/carriers/usps/packages/9400111899223817240935/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivered' }),
  });
  const message = await eventually(
    async () => mail.messages.find((m) => m.to.includes('gift@example.com')),
    15_000,
    'the recipient e-mail',
  );
  expect(Date.now() - deliveredAt).toBeLessThan(10_000);
  expect(message.raw).toContain(order.playback_url);

  // Workers keep running: nothing sends a second time. Rather than watch the inbox for a while,
  // wait for what settles it: every message of the order marked sent (the sender's "was sent" note
  // is the last; the inbox can hold it a moment before the dispatcher has recorded the SMTP
  // answer), then tracking has stopped and one more dispatch round of our own sends nothing to
  // the recipient.
  await eventually(
    async () => mail.messages.find((m) => m.to.includes('ann@example.com') && m.raw.includes('was sent')),
    15_000,
    "the sender's note",
  );
  const db = app.services.database.db;
  await eventually(
    async () => {
      const unsent = await db
        .selectFrom('sends')
        .select(['kind', 'status'])
        .where('order_id', '=', order.id)
        .where('status', '!=', 'sent')
        .execute();
      return unsent.length === 0 ? true : undefined;
    },
    15_000,
    'every message of the order marked sent',
  );
  expect(
    (await db.selectFrom('trackings').select('next_poll_at').where('order_id', '=', order.id).executeTakeFirstOrThrow())
      .next_poll_at,
  ).toBeNull();
  await app.services.dispatcher.dispatchDue();
  expect(mail.messages.filter((m) => m.to.includes('gift@example.com'))).toHaveLength(1);
  expect((await store.request('GET', `/v1/orders/${order.id}`)).body.sent_at).not.toBeNull();
});
