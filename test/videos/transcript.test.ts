import { describe, expect, it } from 'vitest';
import { eventually } from '../support/workers.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { uploadFromRecordPage, videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';

/** Issue 14, captions: the transcript the record page sends after its upload, and the track it becomes. */
let app: VideoTestApp;
let store: TestAccount;
videoTestAppForFile({ queue: 'manual' }, (started) => ({ app, store } = started));

/** The record page's upload, processed: the answer's transcript URL. */
async function sentFromRecordPage(uuid: string): Promise<string> {
  const response = await uploadFromRecordPage(app, uuid);
  expect(response.body.transcript_url).toMatch(new RegExp(`^/record/${uuid}/videos/vid_[0-9a-f]+/transcript$`));
  expect(await app.videos.process(app.enqueued.at(-1)!)).toBe('recorded');
  return response.body.transcript_url as string;
}

const putTranscript = (url: string, body: unknown) => app.request('PUT', url, { body });
const newOrder = async () =>
  (await store.request('POST', '/v1/orders', validOrder)).body as { id: string; uuid: string };
const transcripts = (orderId: string) =>
  app.services.database.db.selectFrom('videos').select('transcript').where('order_id', '=', orderId).execute();

describe('the transcript', () => {
  it('becomes the watch page’s captions track, a WebVTT file over the video’s length, escaped', async () => {
    const order = await newOrder();
    const url = await sentFromRecordPage(order.uuid);
    // No transcript yet: no track, and no captions to fetch.
    expect(await app.request('GET', `/watch/${order.uuid}`).then((r) => r.text)).not.toContain('<track');
    expect((await app.request('GET', `/watch/${order.uuid}/captions.vtt`)).status).toBe(404);

    const saved = await putTranscript(url, { transcript: '  Happy birthday, Bob! Tom & <Sam> say --> hi.  ' });
    expect(saved).toMatchObject({ status: 200, body: { status: 'saved' } });
    expect(await app.request('GET', `/watch/${order.uuid}`).then((r) => r.text)).toContain(
      `<track kind="captions" src="/watch/${order.uuid}/captions.vtt" srclang="en" label="Captions" default>`,
    );

    const vtt = await app.request('GET', `/watch/${order.uuid}/captions.vtt`);
    expect(vtt.status).toBe(200);
    expect(vtt.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(vtt.headers.get('cache-control')).toBe('no-store');
    // The fixture is 2 s long: the cues share it by their length (20 and 23 characters).
    const { duration_tenths } = await app.services.database.db
      .selectFrom('videos')
      .select('duration_tenths')
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
    expect(duration_tenths).toBe(20);
    expect(vtt.text).toBe(
      'WEBVTT\n\n1\n00:00:00.000 --> 00:00:00.930\nHappy birthday, Bob!\n\n' +
        '2\n00:00:00.930 --> 00:00:02.000\nTom &amp; &lt;Sam&gt; say --&gt; hi.\n',
    );
  });

  it('is refused when empty, too long, not text, with other fields, or for another order’s video', async () => {
    const order = await newOrder();
    const url = await sentFromRecordPage(order.uuid);
    const empty = await putTranscript(url, { transcript: '   ' });
    expect(empty.status).toBe(422);
    expect(empty.body.error.fields).toEqual({ transcript: 'must not be empty' });
    const long = await putTranscript(url, { transcript: 'a'.repeat(2001) });
    expect(long.status).toBe(422);
    expect(long.body.error.fields).toEqual({ transcript: 'must be at most 2000 characters' });
    expect((await putTranscript(url, { transcript: 7 })).status).toBe(422);
    // PostgreSQL text cannot hold NUL: refused with the field named, never a 500.
    const nul = await putTranscript(url, { transcript: 'Hi\u0000there' });
    expect(nul.status).toBe(422);
    expect(nul.body.error.fields).toEqual({ transcript: 'must not contain NUL characters' });
    expect((await putTranscript(url, { transcript: 'Hi', extra: 1 })).body.error.fields).toEqual({
      extra: 'is not a field that can be set',
    });
    const notJson = await app.request('PUT', url, { rawBody: 'Hi', headers: { 'Content-Type': 'text/plain' } });
    expect(notJson.status).toBe(415);
    const other = await newOrder();
    expect((await putTranscript(url.replace(order.uuid, other.uuid), { transcript: 'Hi' })).status).toBe(404);
    expect(
      (await putTranscript(url.replace(/vid_[0-9a-f]+/, 'vid_000000000000000000000000'), { transcript: 'Hi' })).status,
    ).toBe(404);
    // Nothing stuck: 2000 characters go in, and a second transcript for the same upload does not.
    expect((await putTranscript(url, { transcript: 'a'.repeat(2000) })).status).toBe(200);
    expect((await putTranscript(url, { transcript: 'Again' })).status).toBe(409);
  });

  it('is replaced with its video: a new upload without one shows no captions, and the old words are gone', async () => {
    const order = await newOrder();
    expect((await putTranscript(await sentFromRecordPage(order.uuid), { transcript: 'First take.' })).status).toBe(200);
    await sentFromRecordPage(order.uuid);
    expect(await transcripts(order.id)).toEqual([{ transcript: null }]);
    expect((await app.request('GET', `/watch/${order.uuid}/captions.vtt`)).status).toBe(404);
  });

  it('is erased with the order’s videos, and a cancelled order serves no captions', async () => {
    const order = await newOrder();
    expect((await putTranscript(await sentFromRecordPage(order.uuid), { transcript: 'Our secret.' })).status).toBe(200);
    const cancelled = await newOrder();
    expect((await putTranscript(await sentFromRecordPage(cancelled.uuid), { transcript: 'Hi.' })).status).toBe(200);
    await app.services.orders.cancel(cancelled.id, 'api', 'test');
    expect((await app.request('GET', `/watch/${cancelled.uuid}/captions.vtt`)).status).toBe(404);

    await app.services.orders.erasePersonalData(order.id, 'shopify', 'customers/redact');
    await eventually(async () => ((await transcripts(order.id)).length === 0 ? true : undefined), 10_000, 'erasure');
    expect((await app.request('GET', `/watch/${order.uuid}/captions.vtt`)).status).toBe(404);
  });
});
