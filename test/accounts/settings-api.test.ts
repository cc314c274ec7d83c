import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, validOrder, type TestAccount, type TestApp } from '../support/test-app.ts';

/** An account that never set its brand or contact address. */
const NO_BRAND = { accent_color: null, font: null, contact_email: null };
/** The settings an account answers with: the defaults (no logo, the note on, English, no brand) but for `changed`. */
const settingsWith = (changed: Record<string, unknown> = {}) => ({
  logo_url: null,
  not_watched_note: true,
  locale: 'en',
  ...NO_BRAND,
  ...changed,
});

let app: TestApp;
let store: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createAccount('Maple & Thread');
  other = await app.createAccount('Other store');
});
afterAll(async () => {
  await app.close();
});

describe('GET and PUT /v1/account/settings', () => {
  it('answers the defaults before anything was set: no logo, the not-watched note on', async () => {
    const response = await other.request('GET', '/v1/account/settings');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(settingsWith());
  });

  it('changes only the fields sent, and each account keeps its own', async () => {
    const logo = 'https://cdn.maplethread.example/logo.png';
    const set = await store.request('PUT', '/v1/account/settings', { logo_url: logo });
    expect(set.status).toBe(200);
    expect(set.body).toEqual(settingsWith({ logo_url: logo }));
    const off = await store.request('PUT', '/v1/account/settings', { not_watched_note: false });
    expect(off.body).toEqual(settingsWith({ logo_url: logo, not_watched_note: false }));
    expect((await store.request('GET', '/v1/account/settings')).body).toEqual(
      settingsWith({ logo_url: logo, not_watched_note: false }),
    );
    expect((await other.request('GET', '/v1/account/settings')).body).toEqual(settingsWith());
  });

  it('refuses what is not an https URL or a boolean, with one message per field, and changes nothing', async () => {
    const before = (await store.request('GET', '/v1/account/settings')).body;
    for (const [body, field] of [
      [{ logo_url: 'http://cdn.example.com/logo.png' }, 'logo_url'],
      [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
      [{ logo_url: `https://cdn.example.com/${'a'.repeat(2_000)}` }, 'logo_url'],
      [{ logo_url: 42 }, 'logo_url'],
      [{ not_watched_note: 'yes' }, 'not_watched_note'],
      [{ locale: 42 }, 'locale'],
      [{ logo: 'https://cdn.example.com/logo.png' }, 'logo'],
    ] as const) {
      const response = await store.request('PUT', '/v1/account/settings', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe('validation_error');
      expect(Object.keys(response.body.error.fields)).toEqual([field]);
    }
    expect(
      (await store.request('PUT', '/v1/account/settings', 'not json', { 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect((await store.request('GET', '/v1/account/settings')).body).toEqual(before);
  });

  it('sets the language of pages and messages: a region tag is its language, the pages follow', async () => {
    const polyglot = await app.createAccount('Maison Polyglotte');
    const set = await polyglot.request('PUT', '/v1/account/settings', { locale: 'fr-CA' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual(settingsWith({ locale: 'fr' }));
    expect((await polyglot.request('GET', '/v1/account/settings')).body.locale).toBe('fr');
    const order = (await polyglot.request('POST', '/v1/orders', { ...validOrder, name: 'Élodie' })).body;
    const record = await app.request('GET', new URL(order.record_url).pathname);
    expect(record.text).toContain('<html lang="fr">');
    // An order without a title is titled in the store's language (gift pages probe: it was English).
    expect(order.video_title).toBe('Un message vidéo d’Élodie');
    const titled = (await polyglot.request('POST', '/v1/orders', { ...validOrder, video_title: 'Joyeux anniversaire' }))
      .body;
    expect(titled.video_title).toBe('Joyeux anniversaire');
    // A corrected sender name carries the title it gave, in the store's language (recipient probe).
    const renamed = await polyglot.request('PUT', `/v1/orders/${order.id}`, { name: 'Amélie' });
    expect(renamed.body.video_title).toBe('Un message vidéo d’Amélie');
    const keptTitle = await polyglot.request('PUT', `/v1/orders/${titled.id}`, { name: 'Amélie' });
    expect(keptTitle.body.video_title).toBe('Joyeux anniversaire');
    // Other fields stay as they were; ES_mx reads as es.
    expect((await polyglot.request('PUT', '/v1/account/settings', { not_watched_note: false })).body.locale).toBe('fr');
    expect((await polyglot.request('PUT', '/v1/account/settings', { locale: 'ES_mx' })).body.locale).toBe('es');
  });

  // Fields probe: after the store's language changed, "Jhon" corrected to "John" stayed in the title.
  it('retitles a default title in the language it was made in when the store has changed language since', async () => {
    const switching = await app.createAccount('Switching store');
    const order = (await switching.request('POST', '/v1/orders', { ...validOrder, name: 'Jhon' })).body;
    expect(order.video_title).toBe('A video message from Jhon');
    await switching.request('PUT', '/v1/account/settings', { locale: 'fr' });
    const renamed = await switching.request('PUT', `/v1/orders/${order.id}`, { name: 'John' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'John', video_title: 'Un message vidéo de John' });
    const events = (await switching.request('GET', `/v1/orders/${order.id}/events`)).body.data;
    expect(events.at(-1)).toMatchObject({ type: 'order.updated', data: { fields: ['name', 'video_title'] } });
  });

  it('refuses a language it does not speak with a 422 naming the ones it does, not silently English', async () => {
    const german = await app.createAccount('Laden');
    await german.request('PUT', '/v1/account/settings', { locale: 'es' });
    for (const locale of ['de', 'de-DE', 'pt-BR', '', 'fr CA', 'x'.repeat(40)]) {
      const response = await german.request('PUT', '/v1/account/settings', { locale, not_watched_note: false });
      expect(response.status, locale).toBe(422);
      expect(response.body.error.fields.locale, locale).toBe(
        'must be one of en, fr, es (a region tag such as fr-CA is read as its language)',
      );
    }
    // Nothing changed, not even the field sent alongside.
    expect((await german.request('GET', '/v1/account/settings')).body).toEqual(settingsWith({ locale: 'es' }));
  });

  it("sets the store's accent, font and contact address; the pages are drawn in them", async () => {
    const brandStore = await app.createAccount('Teal & Co');
    const set = await brandStore.request('PUT', '/v1/account/settings', {
      accent_color: '#1A5E63',
      font: 'classic',
      contact_email: 'hello@teal.example',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ accent_color: '#1a5e63', font: 'classic', contact_email: 'hello@teal.example' });
    // The OpenAPI document says what the server takes: its pattern (flags are not carried) allows upper case.
    const documented = await (await fetch(`${app.baseUrl}/v1/openapi.json`)).text();
    const patterns = [...documented.matchAll(/"pattern":"(\^#[^"]*)"/g)].map(
      (match) => new RegExp(JSON.parse(`"${match[1]}"`)),
    );
    expect(patterns.length).toBeGreaterThan(0);
    for (const pattern of patterns) expect(pattern.test('#1A5E63'), String(pattern)).toBe(true);
    const order = (await brandStore.request('POST', '/v1/orders', validOrder)).body;
    const page = await app.request('GET', new URL(order.record_url).pathname);
    expect(page.text).toContain('--accent: #1a5e63;');
    expect(page.text).toContain('--font: Georgia,');

    for (const [body, field] of [
      [{ accent_color: 'red' }, 'accent_color'],
      [{ accent_color: '#12345' }, 'accent_color'],
      [{ font: 'comic-sans' }, 'font'],
      [{ contact_email: 'not an address' }, 'contact_email'],
    ] as const) {
      const refused = await brandStore.request('PUT', '/v1/account/settings', body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(refused.body.error.fields)).toEqual([field]);
    }
    const cleared = await brandStore.request('PUT', '/v1/account/settings', { accent_color: null, font: null });
    expect(cleared.body).toMatchObject({ accent_color: null, font: null, contact_email: 'hello@teal.example' });
  });

  it('needs credentials', async () => {
    expect((await app.request('GET', '/v1/account/settings')).status).toBe(401);
    expect((await app.request('PUT', '/v1/account/settings', { body: { not_watched_note: false } })).status).toBe(401);
  });

  it("puts the logo on the record and watch pages, named by the store's name, and lets the page load it", async () => {
    const logo = 'https://cdn.maplethread.example/logo.png';
    await store.request('PUT', '/v1/account/settings', { logo_url: logo });
    const order = (await store.request('POST', '/v1/orders', validOrder)).body;
    for (const url of [order.record_url, order.playback_url]) {
      const page = await app.request('GET', new URL(url).pathname);
      expect(page.text).toContain(`<img src="${logo}" alt="Maple &amp; Thread" class="store-logo">`);
      expect(page.headers.get('content-security-policy')).toContain(
        "img-src 'self' data: https://cdn.maplethread.example",
      );
    }
    // Removed: the name alone, and no other origin may serve images.
    await store.request('PUT', '/v1/account/settings', { logo_url: null });
    const page = await app.request('GET', new URL(order.record_url).pathname);
    expect(page.text).not.toContain('store-logo"');
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
  });
});
