import { describe, expect, it } from 'vitest';
import { UNNAMED_RECIPIENT } from '../../src/orders/recipient.ts';
import { whatHappensNext } from '../../src/videos/what-happens-next.ts';
import { eventually } from '../support/workers.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { videoTestAppForFile, type VideoTestApp } from './video-test-app.ts';

const order = {
  recipient_name: 'Grandpa Joe',
  send_trigger: 'package' as const,
  send_on: null,
  delivered: false,
};

describe('whatHappensNext', () => {
  it('names the day the carrier expects, on the destination’s calendar', () => {
    // 02:30 UTC on the 27th is the evening of the 26th in New York.
    const at = new Date('2026-11-27T02:30:00Z');
    expect(whatHappensNext(order, { at, timeZone: 'America/New_York' })).toBe(
      'Grandpa Joe gets your video when the package arrives, about November 26.',
    );
    expect(whatHappensNext(order, { at, timeZone: null })).toBe(
      'Grandpa Joe gets your video when the package arrives, about November 27.',
    );
  });

  it('says it plainly without an estimate, once delivered, and for the other triggers', () => {
    expect(whatHappensNext(order, null)).toBe('Grandpa Joe gets your video when the package arrives.');
    expect(whatHappensNext({ ...order, delivered: true }, null)).toBe(
      'The gift has arrived: Grandpa Joe gets your video as soon as you send it.',
    );
    expect(whatHappensNext({ ...order, send_trigger: 'now' }, null)).toBe(
      'Grandpa Joe gets your video as soon as you send it.',
    );
    expect(whatHappensNext({ ...order, send_trigger: 'date', send_on: new Date('2026-12-24T15:00:00Z') }, null)).toBe(
      'Grandpa Joe gets your video on December 24.',
    );
  });

  it('names a recipient nobody named in the page’s language, at the start of the sentence too', () => {
    const unnamed = { ...order, recipient_name: UNNAMED_RECIPIENT };
    expect(whatHappensNext(unnamed, null)).toBe('Your recipient gets your video when the package arrives.');
    const french = whatHappensNext(unnamed, null, { locale: 'fr', dateLocale: 'fr' });
    expect(french).not.toMatch(/your/i);
    expect(french.charAt(0)).toBe(french.charAt(0).toUpperCase());
  });
});

describe('the record page', () => {
  let app: VideoTestApp;
  let store: TestAccount;
  videoTestAppForFile({ queue: 'manual' }, (started) => ({ app, store } = started));

  it('tells the sender when the recipient gets the video, from the carrier’s estimate', async () => {
    const number = '1Z879E930346834451';
    const seeded = await fetch(`${app.baseUrl}/sandbox/carriers/ups/packages/${number}/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'in_transit', estimated_delivery_at: '2026-11-27T02:30:00Z' }),
    });
    expect(seeded.status).toBe(201);
    const created = (await store.request('POST', '/v1/orders', { ...validOrder, recipient_name: 'Grandpa Joe' })).body;
    const page = async () => (await app.request('GET', `/record/${created.uuid}`)).text;
    expect(await page()).toContain('Grandpa Joe gets your video when the package arrives.');

    expect(
      (await store.request('PUT', `/v1/orders/${created.id}`, { carrier: 'ups', tracking_number: number })).status,
    ).toBe(200);
    // The validation's look at UPS is the first poll: its estimate and destination (Wayne, NJ) are stored.
    await eventually(
      async () => ((await page()).includes('when the package arrives, about November 26.') ? true : undefined),
      5_000,
      'the estimate on the record page',
    );
  });
});
