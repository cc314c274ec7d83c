import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { TestClock } from '../support/clock.ts';
import { validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';
import { API_TIMESTAMP, SPEC_ORDER_FIELDS } from '../support/formats.ts';
import { orderTestAppForFile } from './order-test-app.ts';

const VALID_UPS = '1Z5R89390357567127';
const INVALID_UPS = '1Z1111111111111111';

let app: TestApp;
let store: TestAccount;
const clock = new TestClock();

orderTestAppForFile((started) => ({ app, store } = started), clock);

async function newOrder(extra: Record<string, unknown> = {}) {
  const response = await store.request('POST', '/v1/orders', { ...validOrder, ...extra });
  expect(response.status).toBe(201);
  return response.body as Record<string, unknown> & { id: string };
}

/** PUTs `body` to the order and expects it taken (200); the answer. */
async function acceptedChange(order: { id: string }, body: Record<string, unknown>) {
  const response = await store.request('PUT', `/v1/orders/${order.id}`, body);
  expect(response.status).toBe(200);
  return response;
}

/** PUTs `body` to the order and expects a 422 that changed nothing: the order reads back as it was. */
async function refusedChange(order: { id: string }, body: Record<string, unknown>) {
  const response = await store.request('PUT', `/v1/orders/${order.id}`, body);
  expect(response.status).toBe(422);
  expect((await store.request('GET', `/v1/orders/${order.id}`)).body).toEqual(order);
  return response;
}

describe('POST /v1/orders', () => {
  it('creates an order with exactly the spec fields in the spec order', async () => {
    const response = await store.request('POST', '/v1/orders', validOrder);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(SPEC_ORDER_FIELDS);
    expect(response.headers.get('location')).toBe(`/v1/orders/${response.body.id}`);
    const order = response.body;
    expect(order).toMatchObject({
      name: 'Ann Sender',
      recipient_email: 'bob@example.com',
      recipient_phone: null,
      send_method: 'email',
      send_trigger: 'package',
      carrier: null,
      tracking_number: null,
      delivered: '0',
      video_processed: '0',
      video_duration: '0',
      price: null,
      status: 'created',
      send_on: null,
      recorded_at: null,
      delivered_at: null,
      sent_at: null,
      viewed_at: null,
    });
    expect(order.record_url).toBe(`https://doorstep.test/record/${order.uuid}`);
    expect(order.playback_url).toBe(`https://doorstep.test/watch/${order.uuid}`);
    expect(order.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(order.created_at).toMatch(API_TIMESTAMP);
  });

  it('defaults send_method to sms when only a phone is given, normalizing the phone to E.164', async () => {
    const order = await newOrder({ recipient_email: undefined, recipient_phone: '+1 (415) 555-0123' });
    expect(order).toMatchObject({ send_method: 'sms', recipient_phone: '+14155550123', recipient_email: null });
  });

  // Fields probe: "+44 (0)7700 900123" was stored as +4407700900123 (the "(0)" kept) and a North
  // American number one digit too long was taken: the SMS went to a wrong or impossible number.
  it('reads a phone the way it is written internationally, dropping a "(0)" trunk prefix, and refuses an impossible one', async () => {
    const order = await newOrder({ recipient_email: undefined, recipient_phone: '+44 (0)7700 900123' });
    expect(order.recipient_phone).toBe('+447700900123');
    const changed = await acceptedChange(order, { recipient_phone: '+49 (0)30 123456' });
    expect(changed.body.recipient_phone).toBe('+4930123456');
    const tooLong = await refusedChange(changed.body, {
      recipient_phone: '+1 415 555 01234',
      sender_phone: '+1 415 555',
    });
    expect(tooLong.body.error.fields).toEqual({
      recipient_phone: expect.stringContaining('too long'),
      sender_phone: expect.stringContaining('too short'),
    });
    for (const notInternational of [
      '0044 7700 900123',
      '415 555 0123',
      'call +1 415 555 0123',
      '+1 415 555 0123 ext. 5',
    ])
      expect(
        (await refusedChange(changed.body, { recipient_phone: notInternational })).body.error.fields,
      ).toHaveProperty('recipient_phone');
  });

  it('requires a way to reach the recipient', async () => {
    const response = await store.request('POST', '/v1/orders', { ...validOrder, recipient_email: undefined });
    expect(response.status).toBe(422);
    expect(response.body.error.fields).toHaveProperty('recipient_email');
  });

  it('refuses delivered on a create, saying to create the order first and then PUT delivered (shipment probe)', async () => {
    const before = (await store.request('GET', '/v1/orders?limit=1')).body.data;
    const response = await store.request('POST', '/v1/orders', { ...validOrder, delivered: 1 });
    expect(response.status).toBe(422);
    expect(response.body.error.fields).toEqual({
      delivered: 'cannot be set when creating an order: create it first, then PUT {"delivered":1} to /v1/orders/{id}',
    });
    expect((await store.request('GET', '/v1/orders?limit=1')).body.data).toEqual(before);
    // Any other field a create does not know is still just that.
    const unknown = await store.request('POST', '/v1/orders', { ...validOrder, shipped: 1 });
    expect(unknown.body.error.fields).toEqual({ shipped: 'is not a field that can be set' });
  });

  it('names every missing required field', async () => {
    const response = await store.request('POST', '/v1/orders', {});
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.error.fields).sort()).toEqual(['email', 'name', 'recipient_name']);
  });

  it('returns the first order again for a retried Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': `retry-${Date.now()}` };
    const first = await store.request('POST', '/v1/orders', validOrder, headers);
    const again = await store.request('POST', '/v1/orders', validOrder, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('creates one order when the same Idempotency-Key arrives concurrently', async () => {
    const headers = { 'Idempotency-Key': `race-${Date.now()}` };
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => store.request('POST', '/v1/orders', validOrder, headers)),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
  });

  it('rejects an Idempotency-Key reused with a different body', async () => {
    const headers = { 'Idempotency-Key': `reuse-${Date.now()}` };
    await store.request('POST', '/v1/orders', validOrder, headers);
    const response = await store.request('POST', '/v1/orders', { ...validOrder, name: 'Someone else' }, headers);
    expect(response.status).toBe(409);
  });

  // A probe's empty key created an order as if none were sent: its retry would create a second one.
  it('refuses an Idempotency-Key sent empty or twice, creating nothing', async () => {
    const fresh = await app.createAccount('Idempotency keys');
    const empty = await fresh.request('POST', '/v1/orders', validOrder, { 'Idempotency-Key': '' });
    expect(empty.status).toBe(422);
    expect(empty.body.error.fields['Idempotency-Key']).toMatch(/one header of 1 to 255/);
    const twice = await fetch(`${app.baseUrl}/v1/orders`, {
      method: 'POST',
      headers: [
        ['Authorization', auth(fresh)],
        ['Content-Type', 'application/json'],
        ['Idempotency-Key', 'a'],
        ['Idempotency-Key', 'b'],
      ],
      body: JSON.stringify(validOrder),
    });
    expect(twice.status).toBe(422);
    expect((await fresh.request('GET', '/v1/orders')).body.data).toEqual([]);
  });
});

describe('PUT /v1/orders/{id} — spec §4', () => {
  it('stores carrier and a valid tracking number without a warning', async () => {
    const order = await newOrder();
    const response = await acceptedChange(order, {
      carrier: 'ups',
      tracking_number: VALID_UPS,
    });
    expect(response.body.warning).toBeUndefined();
    expect(response.body).toMatchObject({
      carrier: 'ups',
      tracking_number: VALID_UPS,
      status: 'created',
      delivered: '0',
    });
  });

  it('stores an invalid tracking number and puts the warning before the order fields', async () => {
    const order = await newOrder();
    const response = await acceptedChange(order, {
      carrier: 'ups',
      tracking_number: INVALID_UPS,
    });
    expect(Object.keys(response.body)).toEqual(['warning', ...SPEC_ORDER_FIELDS]);
    expect(response.text.startsWith('{"warning":{"type":"request","message":')).toBe(true);
    expect(response.body.warning.message).toContain('UPS');
    expect(response.body).toMatchObject({ carrier: 'ups', tracking_number: INVALID_UPS });
    const events = await store.request('GET', `/v1/orders/${order.id}/events`);
    expect(events.body.data.map((e: { type: string }) => e.type)).toContain('tracking.warning');
  });

  it('matches the carrier case-insensitively and normalizes the tracking number', async () => {
    const order = await newOrder();
    const response = await store.request('PUT', `/v1/orders/${order.id}`, {
      carrier: 'FedEx',
      tracking_number: ' 9864 5646 2891 ',
    });
    expect(response.body).toMatchObject({ carrier: 'fedex', tracking_number: '986456462891' });
  });

  it('removes typographic dashes too, and refuses letters beyond ASCII instead of rewriting them (API probe: "straße" became "STRASSE")', async () => {
    const order = await newOrder();
    for (const tracking_number of ['1zıabc123', 'straße123', '1Zﬀ12345']) {
      const refused = await refusedChange(order, { carrier: 'ups', tracking_number });
      expect(refused.body.error.fields.tracking_number, tracking_number).toBe(
        'must be 1 to 64 printable ASCII characters',
      );
    }
    const dashed = await acceptedChange(order, { carrier: 'fedex', tracking_number: '9864–5646−2891' });
    expect(dashed.body.tracking_number).toBe('986456462891');
  });

  it('refuses a name or title made only of invisible characters as empty (API probe: the e-mail read “”)', async () => {
    const order = await newOrder();
    for (const value of ['\u200b', '\u2060\u200b', '\ufeff', ' \u00ad '])
      for (const field of ['video_title', 'name', 'recipient_name']) {
        const refused = await refusedChange(order, { [field]: value });
        expect(refused.body.error.fields[field], `${field} ${JSON.stringify(value)}`).toMatch(/must not be empty/);
      }
    // Text with something visible beside a zero-width joiner (emoji sequences use it) is kept.
    expect((await acceptedChange(order, { video_title: '👨\u200d👩\u200d👧 Love' })).body.video_title).toBe(
      '👨\u200d👩\u200d👧 Love',
    );
  });

  it('rejects an unsupported carrier naming the three, and changes nothing', async () => {
    const order = await newOrder();
    const response = await refusedChange(order, { carrier: 'dhl', tracking_number: '123' });
    expect(response.body.error.fields.carrier).toBe('must be one of ups, fedex, usps');
  });

  it('accepts a tracking number alone when a carrier is stored, and rejects it when none is', async () => {
    const order = await newOrder();
    const alone = await store.request('PUT', `/v1/orders/${order.id}`, { tracking_number: VALID_UPS });
    expect(alone.status).toBe(422);
    expect(alone.body.error.fields).toHaveProperty('carrier');
    await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: INVALID_UPS });
    const changed = await acceptedChange(order, { tracking_number: VALID_UPS });
    expect(changed.body).toMatchObject({ carrier: 'ups', tracking_number: VALID_UPS });
  });

  it('marks delivered with delivered: 1, leaving carrier and tracking null (rules 3 and 4)', async () => {
    const order = await newOrder();
    clock.advance(60_000);
    const response = await acceptedChange(order, { delivered: 1 });
    expect(response.body).toMatchObject({ delivered: '1', status: 'delivered', carrier: null, tracking_number: null });
    expect(response.body.delivered_at).toMatch(API_TIMESTAMP);
    expect(response.body.delivered_at).toBe(response.body.updated_at);
    expect(response.body.updated_at).not.toBe(order.updated_at);
  });

  it('treats a second delivered: 1 as a no-op', async () => {
    const order = await newOrder();
    const first = await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    clock.advance(60_000);
    const second = await acceptedChange(order, { delivered: true });
    expect(second.body).toEqual(first.body);
  });

  it('refuses to undo delivery', async () => {
    const order = await newOrder();
    for (const delivered of [0, '1', 2, false]) {
      const response = await store.request('PUT', `/v1/orders/${order.id}`, { delivered });
      expect(response.status).toBe(422);
      expect(response.body.error.fields.delivered).toMatch(/only 1 is accepted/);
    }
  });

  it('refuses to change the shipment of a delivered order', async () => {
    const order = await newOrder({ carrier: 'ups', tracking_number: VALID_UPS });
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    const response = await store.request('PUT', `/v1/orders/${order.id}`, {
      carrier: 'usps',
      tracking_number: '9400100000000000000000',
    });
    expect(response.status).toBe(409);
    expect(response.body.error.type).toBe('conflict');
  });

  it('sets the price in integer cents (rule 5) and rejects anything else', async () => {
    const order = await newOrder();
    const ok = await store.request('PUT', `/v1/orders/${order.id}`, { price: 550 });
    expect(ok.body.price).toBe(550);
    for (const price of [5.5, '550', -1, 100_000_001, true]) {
      const bad = await store.request('PUT', `/v1/orders/${order.id}`, { price });
      expect(bad.status, `price ${JSON.stringify(price)}`).toBe(422);
      expect(bad.body.error.fields.price).toMatch(/integer number of cents/);
    }
    const cleared = await store.request('PUT', `/v1/orders/${order.id}`, { price: null });
    expect(cleared.body.price).toBeNull();
  });

  it('changes only the fields sent, and updated_at only when something changed', async () => {
    const order = await newOrder();
    clock.advance(5_000);
    const same = await store.request('PUT', `/v1/orders/${order.id}`, { name: order.name });
    expect(same.body.updated_at).toBe(order.updated_at);
    clock.advance(5_000);
    const changed = await store.request('PUT', `/v1/orders/${order.id}`, {
      recipient_name: 'Robert',
      recipient_phone: '+442071838750',
    });
    expect(changed.body).toEqual({
      ...order,
      recipient_name: 'Robert',
      recipient_phone: '+442071838750',
      updated_at: changed.body.updated_at,
    });
    expect(changed.body.updated_at).not.toBe(order.updated_at);
  });

  it('updates every customer detail field docs/design.md lists', async () => {
    const order = await newOrder();
    const update = {
      name: 'Ann B',
      email: 'annb@example.com',
      recipient_name: 'Carl',
      recipient_email: 'carl@example.com',
      recipient_phone: '+14155550199',
      send_method: 'email_and_sms',
      send_trigger: 'date',
      send_on: '2026-12-24T09:00:00+01:00',
      video_title: 'Merry Christmas',
    };
    const response = await store.request('PUT', `/v1/orders/${order.id}`, update);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ...update, send_on: '2026-12-24T08:00:00Z' });
  });

  it('rejects unknown fields, bad e-mails, bad phones and bad enums with one error per field', async () => {
    const order = await newOrder();
    const response = await refusedChange(order, {
      colour: 'red',
      email: 'not-an-email',
      recipient_phone: '555-0123',
      send_method: 'pigeon',
      send_on: 'tomorrow',
    });
    expect(Object.keys(response.body.error.fields).sort()).toEqual([
      'colour',
      'email',
      'recipient_phone',
      'send_method',
      'send_on',
    ]);
  });

  // Fields probe: a 200-character name gave a 221-character default title, which PUT then refused.
  it('keeps a default title within the title limit, shortening the name at a whole character, and still retitles it', async () => {
    // A family emoji (five code points, eight UTF-16 units) straddles the place where the name is cut.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const name = `${'A'.repeat(176)}${family}${'B'.repeat(16)}`;
    expect(name.length).toBe(200);
    const order = await newOrder({ name });
    const title = order.video_title as string;
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title).toBe(`A video message from ${'A'.repeat(176)}…`);
    await acceptedChange(order, { video_title: title });
    const renamed = await acceptedChange(order, { name: 'Ann' });
    expect(renamed.body.video_title).toBe('A video message from Ann');
  });

  it('refuses a blank video_title, which the recipient would read as “”', async () => {
    const order = await newOrder();
    for (const video_title of ['', '   '])
      expect((await refusedChange(order, { video_title })).body.error.fields).toEqual({
        video_title: 'video_title must not be empty',
      });
  });

  // A probe sent fields named after Object.prototype's members: the 422 named none of them.
  it('names a field called constructor or __proto__ like any other, and says which fields a new order lacks', async () => {
    const order = await newOrder();
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const response = await app.request('PUT', `/v1/orders/${order.id}`, {
        rawBody: `{"price":5,"${key}":{}}`,
        headers: { Authorization: auth(store), 'Content-Type': 'application/json' },
      });
      expect(response.status, key).toBe(422);
      expect(response.body.error.fields, key).toEqual({ [key]: 'is not a field that can be set' });
    }
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.price).toBeNull();
    const empty = await store.request('POST', '/v1/orders', {});
    expect(empty.status).toBe(422);
    expect(empty.body.error.fields).toMatchObject({ name: 'is required', email: 'is required' });
    const wrongType = await store.request('POST', '/v1/orders', { ...validOrder, name: 5 });
    expect(wrongType.body.error.fields).toEqual({ name: 'must be a string' });
  });

  it('refuses a change that would leave the order unable to send', async () => {
    const order = await newOrder();
    const response = await store.request('PUT', `/v1/orders/${order.id}`, { recipient_email: null });
    expect(response.status).toBe(422);
    const smsWithoutPhone = await store.request('PUT', `/v1/orders/${order.id}`, { send_method: 'sms' });
    expect(smsWithoutPhone.status).toBe(422);
    expect(smsWithoutPhone.body.error.fields.send_method).toContain('recipient_phone');
  });

  it('keeps a delivered order delivered when the video is recorded afterwards', async () => {
    const order = await newOrder();
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    await app.services.orders.markRecorded(order.id, { durationTenths: 124 });
    const after = await store.request('GET', `/v1/orders/${order.id}`);
    expect(after.body).toMatchObject({ status: 'delivered', video_processed: '1', video_duration: '12.4' });
    expect(after.body.recorded_at).toMatch(API_TIMESTAMP);
  });

  it('moves a recorded order to delivered', async () => {
    const order = await newOrder();
    await app.services.orders.markRecorded(order.id, { durationTenths: 90 });
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body).toMatchObject({
      status: 'recorded',
      video_duration: '9',
    });
    const response = await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    expect(response.body.status).toBe('delivered');
  });
});

describe('bad requests', () => {
  it('answers a PUT with no body at all with 400 saying so, not a 415 about the type it sent', async () => {
    const order = await newOrder();
    const { hostname, port } = new URL(app.baseUrl);
    const socket = net.connect(Number(port), hostname);
    socket.write(
      [
        `PUT /v1/orders/${order.id} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        `Authorization: ${auth(store)}`,
        'Content-Type: application/json',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    let answer = '';
    for await (const chunk of socket) answer += String(chunk);
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(answer).toContain('The request has no body; send the JSON object in it.');
  });

  it('answers malformed JSON with 400', async () => {
    const order = await newOrder();
    const response = await app.request('PUT', `/v1/orders/${order.id}`, {
      rawBody: '{"price": 5',
      headers: { Authorization: auth(store), 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_json');
  });

  // Fields probe: {"price":-5,"price":100} was taken as 100 and {"price":100,"price":-5} refused —
  // JSON.parse keeps the last, so the stored value hung on key order and hid a client's bug.
  it('refuses a key repeated in one object with 400 naming it, whichever value comes last', async () => {
    const order = await newOrder({ price: 550 });
    const put = (rawBody: string) =>
      app.request('PUT', `/v1/orders/${order.id}`, {
        rawBody,
        headers: { Authorization: auth(store), 'Content-Type': 'application/json' },
      });
    for (const rawBody of [
      '{"price":-5,"price":100}',
      '{"price":100,"price":-5}',
      '{"price":100, "pr\\u0069ce" : 100}', // the same key, escaped
      '{"name":"Ann","x":[{"a":1},{"b":{"price":1,"price":2}}]}', // in a nested object too
    ]) {
      const response = await put(rawBody);
      expect({ rawBody, status: response.status }).toEqual({ rawBody, status: 400 });
      expect(response.body.error).toMatchObject({ type: 'invalid_json', message: expect.stringContaining('"price"') });
    }
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.price).toBe(550);
    // The same key in two objects, or a key's words inside a string, is no repetition.
    const taken = await put('{"video_title":"{\\"price\\":1,\\"price\\":2}","price":100}');
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ price: 100, video_title: '{"price":1,"price":2}' });
    const nested = await put('{"price":100,"x":{"price":1}}');
    expect(nested.body.error.fields).toEqual({ x: expect.any(String) });
  });

  // A black-box probe stored a Latin-1 "Zoë" as "Zo\uFFFD" and sent it on: bytes that are not UTF-8, a
  // charset other than UTF-8 and escaped lone surrogates are refused, and the order keeps its name.
  it('refuses JSON that is not UTF-8, says which, and changes nothing', async () => {
    const order = await newOrder({ name: 'Ann' });
    const put = (rawBody: string | Buffer, contentType = 'application/json') =>
      app.request('PUT', `/v1/orders/${order.id}`, {
        rawBody,
        headers: { Authorization: auth(store), 'Content-Type': contentType },
      });
    const latin1 = await put(Buffer.from('{"name":"Zo\xEB"}', 'latin1'));
    expect(latin1.status).toBe(400);
    expect(latin1.body.error).toMatchObject({ type: 'invalid_json', message: 'The request body is not valid UTF-8.' });
    const declared = await put(Buffer.from('{"name":"Zo\xEB"}', 'latin1'), 'application/json; charset=iso-8859-1');
    expect(declared.status).toBe(415);
    expect(declared.body.error.message).toContain('charset=iso-8859-1');
    // ASCII reads the same in every charset: a label that is not UTF-8 on an ASCII body is no reason to refuse.
    const ascii = await put('{"video_title":"Happy birthday"}', 'application/json; charset=iso-8859-1');
    expect(ascii.status).toBe(200);
    const surrogate = await put('{"name":"a\\ud800b"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.message).toContain('lone surrogate');
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.name).toBe('Ann');
    // UTF-8, declared or not, passes, astral characters included.
    const zoe = await put(Buffer.from('{"name":"Zoë 🎁"}', 'utf8'), 'application/json; charset=UTF-8');
    expect(zoe.status).toBe(200);
    expect(zoe.body.name).toBe('Zoë 🎁');
  });

  it('refuses a body nested thousands deep with 400, not 500 (API probe: a 10 KB body ran the check out of stack)', async () => {
    const order = await newOrder({ name: 'Ann' });
    const deep = `{"name":"Bob","x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const [method, path] of [
      ['PUT', `/v1/orders/${order.id}`],
      ['POST', '/v1/orders'],
    ] as const) {
      const response = await app.request(method, path, {
        rawBody: deep,
        headers: { Authorization: auth(store), 'Content-Type': 'application/json' },
      });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body.error).toMatchObject({ type: 'invalid_json', message: expect.stringContaining('64 deep') });
    }
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.name).toBe('Ann');
    // Depth a client might really send is read as before (here refused for its unknown field, not its depth).
    const shallow = await app.request('PUT', `/v1/orders/${order.id}`, {
      rawBody: `{"x":${'['.repeat(20)}${']'.repeat(20)}}`,
      headers: { Authorization: auth(store), 'Content-Type': 'application/json' },
    });
    expect(shallow.status).toBe(422);
  });

  it('refuses a compressed body with 415, and names only the first 20 of many unknown fields', async () => {
    const order = await newOrder();
    for (const encoding of ['gzip', 'br']) {
      const compressed = await app.request('PUT', `/v1/orders/${order.id}`, {
        rawBody: '{"price":5}',
        headers: { Authorization: auth(store), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      });
      expect(compressed.status, encoding).toBe(415);
      expect(compressed.body.error.message).toContain(`Content-Encoding ${encoding}`);
    }
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`unknown_${i}`, 1]));
    const response = await store.request('PUT', `/v1/orders/${order.id}`, many);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.error.fields)).toHaveLength(21);
    expect(response.body.error.fields._).toBe('and 4980 more unknown fields');
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.price).toBeNull();
  });

  it('answers a JSON array body with 400', async () => {
    const order = await newOrder();
    const response = await store.request('PUT', `/v1/orders/${order.id}`, [1, 2]);
    expect(response.status).toBe(400);
  });

  it('answers a non-JSON content type with 415', async () => {
    const order = await newOrder();
    const response = await app.request('PUT', `/v1/orders/${order.id}`, {
      rawBody: 'price=550',
      headers: { Authorization: auth(store), 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
  });

  it('answers a body over 1 MB with 413', async () => {
    const order = await newOrder();
    const response = await store.request('PUT', `/v1/orders/${order.id}`, { video_title: 'x'.repeat(1_100_000) });
    expect(response.status).toBe(413);
    expect(response.body.error.type).toBe('payload_too_large');
  });

  it('answers an unknown order with 404', async () => {
    const response = await store.request('PUT', '/v1/orders/ord_missing', { price: 1 });
    expect(response.status).toBe(404);
    expect(response.body.error.type).toBe('not_found');
  });

  it("hides another account's order behind 404 for every verb", async () => {
    const order = await newOrder();
    const other = await app.createAccount('Other store');
    expect((await other.request('GET', `/v1/orders/${order.id}`)).status).toBe(404);
    expect((await other.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 })).status).toBe(404);
    expect((await other.request('DELETE', `/v1/orders/${order.id}`)).status).toBe(404);
    expect((await other.request('GET', `/v1/orders/${order.id}/events`)).status).toBe(404);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.delivered).toBe('0');
  });

  it('answers missing or wrong credentials with 401 and WWW-Authenticate', async () => {
    const none = await app.request('GET', '/v1/orders');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrongKey = await app.request('GET', '/v1/orders', {
      headers: { Authorization: `Basic ${Buffer.from(`${store.appId}:nope`).toString('base64')}` },
    });
    expect(wrongKey.status).toBe(401);
    const unknownApp = await app.request('GET', '/v1/orders', {
      headers: { Authorization: `Basic ${Buffer.from('app_nobody:x').toString('base64')}` },
    });
    expect(unknownApp.status).toBe(401);
    expect(JSON.stringify(wrongKey.body)).not.toContain(store.apiKey);
  });

  it('authenticates /v1 spelt in any case, as the routers match it (API probe: /V1 skipped the check, the rate limit and no-store)', async () => {
    for (const path of ['/V1/orders', '/V1/Orders', '/v1/ORDERS']) {
      const none = await app.request('GET', path);
      expect({ path, status: none.status }).toEqual({ path, status: 401 });
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
      const known = await store.request('GET', path);
      expect({ path, status: known.status }).toEqual({ path, status: 200 });
      expect(known.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('answers text PostgreSQL cannot store (a NUL character) with a 4xx, not 500', async () => {
    const order = await newOrder();
    // A name is one line: the schema refuses the NUL (a control character) before PostgreSQL sees it.
    const response = await store.request('PUT', `/v1/orders/${order.id}`, { name: 'a\u0000b' });
    expect(response.status).toBe(422);
    expect(response.body.error.fields.name).toMatch(/one line of text/);
    expect((await store.request('GET', '/v1/orders/%00')).status).toBeLessThan(500);
    const nulUser = await app.request('GET', '/v1/orders', {
      headers: { Authorization: `Basic ${Buffer.from('\u0000:x').toString('base64')}` },
    });
    expect(nulUser.status).toBe(401);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).body.name).toBe(order.name);
  });

  it("answers an unsupported method with 405, the route's own Allow header and a message naming them", async () => {
    const order = await newOrder();
    const response = await store.request('PATCH', `/v1/orders/${order.id}`, { price: 1 });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('HEAD, GET, PUT, DELETE');
    expect(response.body.error).toMatchObject({
      type: 'method_not_allowed',
      message: 'This URL answers HEAD, GET, PUT, DELETE, not PATCH.',
    });
    const cases: Array<[string, string, string]> = [
      ['GET', `/v1/orders/${order.id}/resend`, 'POST'],
      ['DELETE', '/v1/orders', 'HEAD, GET, POST'],
      ['POST', '/v1/billing/statements/2026-11', 'HEAD, GET'],
      ['DELETE', `/v1/orders/${order.id}/events`, 'HEAD, GET'],
    ];
    for (const [method, path, allow] of cases) {
      const refused = await store.request(method, path);
      expect(refused.status, `${method} ${path}`).toBe(405);
      const sorted = (list: string | null) => (list ?? '').split(', ').sort();
      expect(sorted(refused.headers.get('allow')), `${method} ${path}`).toEqual(sorted(allow));
      expect(refused.body.error.type).toBe('method_not_allowed');
    }
  });

  it('echoes a request id on every response', async () => {
    const response = await app.request('GET', '/healthz', { headers: { 'X-Request-Id': 'trace-123' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-123');
  });
});

describe('reading, listing and deleting', () => {
  it('pages through orders newest first with a cursor, and filters by status and delivered', async () => {
    const account = await app.createAccount('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await account.request('POST', '/v1/orders', validOrder)).body.id);
    await account.request('PUT', `/v1/orders/${ids[1]}`, { delivered: 1 });

    const first = await account.request('GET', '/v1/orders?limit=2');
    expect(first.body.data.map((o: { id: string }) => o.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await account.request('GET', `/v1/orders?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1]]);
    const third = await account.request('GET', `/v1/orders?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(third.body.data.map((o: { id: string }) => o.id)).toEqual([ids[0]]);

    const delivered = await account.request('GET', '/v1/orders?delivered=1');
    expect(delivered.body.data.map((o: { id: string }) => o.id)).toEqual([ids[1]]);
    const created = await account.request('GET', '/v1/orders?status=created&limit=100');
    expect(created.body.data).toHaveLength(4);
  });

  it('rejects bad list parameters', async () => {
    for (const query of ['limit=0', 'limit=101', 'status=lost', 'delivered=yes', 'cursor=%%%', 'sort=asc']) {
      const response = await store.request('GET', `/v1/orders?${query}`);
      expect(response.status, query).toBe(422);
    }
    // Each named in words meant for a query, not a body or a library's.
    const named = await store.request('GET', '/v1/orders?sort=asc&cursor=&constructor=1');
    expect(named.body.error.fields).toEqual({
      sort: 'is not a query parameter of this list',
      constructor: 'is not a query parameter of this list',
      cursor: 'must be the next_cursor of a previous page',
    });
  });

  it('says a list parameter was given more than once, rather than that its value is wrong (shipment probe)', async () => {
    const twice = await store.request('GET', '/v1/orders?limit=1&limit=2&status=created&status=recorded&status=lost');
    expect(twice.status).toBe(422);
    expect(twice.body.error.fields).toEqual({
      limit: 'was given 2 times: give it once',
      status: 'was given 3 times: give it once',
    });
    // An unknown parameter given twice is still just unknown.
    const unknown = await store.request('GET', '/v1/orders?sort=asc&sort=desc');
    expect(unknown.body.error.fields).toEqual({ sort: 'is not a query parameter of this list' });
  });

  it('deletes an order: 204, then gone from the API', async () => {
    const order = await newOrder();
    expect((await store.request('DELETE', `/v1/orders/${order.id}`)).status).toBe(204);
    expect((await store.request('GET', `/v1/orders/${order.id}`)).status).toBe(404);
    expect((await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 })).status).toBe(404);
  });

  it("keeps the order's timeline oldest first with each change's source", async () => {
    const order = await newOrder();
    await store.request('PUT', `/v1/orders/${order.id}`, { carrier: 'ups', tracking_number: VALID_UPS });
    await store.request('PUT', `/v1/orders/${order.id}`, { price: 999 });
    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    const events = await store.request('GET', `/v1/orders/${order.id}/events`);
    expect(events.body.data.map((e: { type: string; source: string }) => `${e.source}:${e.type}`)).toEqual([
      'api:order.created',
      'api:shipment.set',
      'api:order.updated',
      'api:order.delivered',
      // Delivered without a recorded video: the timeline says why nothing was sent.
      'system:send.waiting',
    ]);
    expect(events.body.data.every((e: { created_at: string }) => API_TIMESTAMP.test(e.created_at))).toBe(true);
    // Instants inside the entries' data are in the contract's format too (they kept milliseconds).
    const instants = events.body.data
      .flatMap((e: { data: Record<string, unknown> }) => Object.values(e.data))
      .filter((value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value));
    expect(instants.length).toBeGreaterThan(0);
    for (const instant of instants) expect(instant).toMatch(API_TIMESTAMP);
  });
});

function auth(account: TestAccount): string {
  return `Basic ${Buffer.from(`${account.appId}:${account.apiKey}`).toString('base64')}`;
}
