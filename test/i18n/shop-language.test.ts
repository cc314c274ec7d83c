import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountLocale, setAccountLocale } from '../../src/accounts/locale.ts';
import { decodedMail, startMailServer } from '../support/mail-server.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from '../videos/video-test-app.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify } from '../shopify/harness.ts';
import { sessionToken } from '../shopify/session-token.ts';

/**
 * A shop that speaks French or Spanish: its record and watch pages and its e-mails are in that
 * language (real PGlite, real workers, the in-process SMTP server), and a Shopify shop's language is
 * its primary locale, read from Shopify at install.
 */
const WEBM = fixture('recorded-vp8-opus.webm');

/** A message's body as text: quoted-printable undone, then read as the UTF-8 it is. */
const mailText = (raw: string) => Buffer.from(decodedMail(raw), 'latin1').toString('utf8');

describe('a French or Spanish shop', () => {
  let app: VideoTestApp;
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  beforeAll(async () => {
    mail = await startMailServer();
    app = await startVideoTestApp({ queue: 'bullmq', env: { SMTP_URL: mail.url } });
  });
  afterAll(async () => {
    await app.close();
    await mail.close();
  });

  async function shopIn(locale: string): Promise<TestAccount> {
    const store = await app.createAccount(`Boutique ${locale}`);
    await setAccountLocale(app.services.database.db, store.id, locale);
    return store;
  }

  const cases = [
    {
      locale: 'fr-FR',
      lang: 'fr',
      record: ['Enregistrez un message vidéo pour Mamie Jeanne', 'Utiliser la caméra', 'Envoyer la vidéo'],
      script: 'Regardez votre vidéo',
      onItsWay: 'Un message vidéo de Ann Sender est en route.',
      watch: 'Un message vidéo de <strong id="sender">Ann Sender</strong>, avec un cadeau de Boutique fr-FR',
      subject: 'Ann Sender vous a envoyé un message vidéo',
      body: ['Bonjour Mamie Jeanne,', 'Regarder la vidéo', 'Ou ouvrez ce lien'],
    },
    {
      locale: 'es',
      lang: 'es',
      record: ['Graba un videomensaje para Mamie Jeanne', 'Usar la cámara', 'Enviar video'],
      script: 'Mira tu video',
      onItsWay: 'Un videomensaje de Ann Sender está en camino.',
      watch: 'Un videomensaje de <strong id="sender">Ann Sender</strong>, con un regalo de Boutique es',
      subject: 'Ann Sender te envió un videomensaje',
      body: ['Hola, Mamie Jeanne:', 'Ver el video', 'O abre este enlace'],
    },
  ];

  for (const c of cases) {
    it(`${c.lang}: the record page, the watch page and the recipient's e-mail speak it`, async () => {
      const store = await shopIn(c.locale);
      const email = `mamie-${c.lang}-${Date.now()}@example.com`;
      const order = (
        await store.request('POST', '/v1/orders', {
          ...validOrder,
          recipient_name: 'Mamie Jeanne',
          recipient_email: email,
        })
      ).body;

      const record = await app.request('GET', `/record/${order.uuid}`);
      expect(record.text).toContain(`<html lang="${c.lang}">`);
      for (const words of c.record) expect(record.text).toContain(words);
      // The page's script gets its words in the same language.
      expect(record.text).toContain(c.script);
      expect(record.text).not.toContain('Use the camera');

      expect((await app.request('GET', `/watch/${order.uuid}`)).text).toContain(c.onItsWay);
      expect(
        (await store.request('PUT', `/v1/orders/${order.id}/video`, WEBM, { 'Content-Type': 'video/webm' })).status,
      ).toBe(200);
      const watch = await eventually(
        async () => {
          const page = await app.request('GET', `/watch/${order.uuid}`);
          return page.text.includes('<video id="message"') ? page : undefined;
        },
        15_000,
        'the watch page with the video',
      );
      expect(watch.text).toContain(`<html lang="${c.lang}">`);
      expect(watch.text).toContain(c.watch);

      await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
      const message = await eventually(
        async () => mail.messages.find((m) => m.to.includes(email)),
        15_000,
        'the recipient e-mail',
      );
      const text = mailText(message.raw);
      for (const words of c.body) expect(text).toContain(words);
      expect(text).toContain(`lang="${c.lang}"`);
      expect(text).not.toContain('Watch the video');
      // The subject is a MIME encoded-word when it is not ASCII: compare what it says.
      const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(message.raw)?.[1] ?? '';
      const decoded = subject
        .replace(/\r?\n[ \t]/g, '')
        .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi, (_w, kind: string, data: string) =>
          kind.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64').toString('utf8')
            : Buffer.from(
                data
                  .replace(/_/g, ' ')
                  .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
                'latin1',
              ).toString('utf8'),
        );
      expect(decoded.trim()).toBe(c.subject);
    });
  }

  it("writes the record page's date as the visitor's browser does, in the page's language", async () => {
    const store = await app.createAccount('Dates');
    const order = (
      await store.request('POST', '/v1/orders', {
        ...validOrder,
        recipient_name: 'Grandpa Joe',
        send_trigger: 'date',
        send_on: '2026-12-24T15:00:00Z',
      })
    ).body;
    const page = async (acceptLanguage: string) =>
      (await app.request('GET', `/record/${order.uuid}`, { headers: { 'Accept-Language': acceptLanguage } })).text;
    expect(await page('en-US,en;q=0.9')).toContain('Grandpa Joe gets your video on December 24.');
    expect(await page('en-GB,en;q=0.9')).toContain('Grandpa Joe gets your video on 24 December.');
    await setAccountLocale(app.services.database.db, store.id, 'fr');
    expect(await page('fr-CA')).toContain('Grandpa Joe reçoit votre vidéo le 24 décembre.');
    expect(await page('en-GB')).toContain('Grandpa Joe reçoit votre vidéo le 24 décembre.');
  });

  it('answers an unknown link in the visitor’s language when we speak it', async () => {
    const response = await app.request('GET', '/watch/00000000-0000-4000-8000-000000000000', {
      headers: { 'Accept-Language': 'es-AR,es;q=0.9' },
    });
    expect(response.status).toBe(404);
    expect(response.text).toContain('<html lang="es">');
    expect(response.text).toContain('No encontramos este videomensaje');
  });
});

describe("a Shopify shop's language", () => {
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => close?.());

  it('is its primary locale, read from Shopify when it installs (fr-CA → fr)', async () => {
    const started = await startShopifyTestAppWithFakeShopify();
    close = started.close;
    const { app, fake } = started;
    const shop = `boulangerie-${Date.now()}.myshopify.com`;
    fake.primaryLocales.set(shop, 'fr-CA');
    // The embedded admin's first call installs the shop by token exchange.
    const response = await fetch(`${app.baseUrl}/shopify/api/billing`, {
      headers: { Authorization: `Bearer ${sessionToken(shop, API_KEY, SECRET)}` },
    });
    expect(response.status).toBe(200);
    const db = app.services.database.db;
    const row = await db.selectFrom('shops').select('account_id').where('domain', '=', shop).executeTakeFirstOrThrow();
    expect(await findAccountLocale(db, row.account_id)).toBe('fr');

    const english = `corner-${Date.now()}.myshopify.com`;
    await fetch(`${app.baseUrl}/shopify/api/billing`, {
      headers: { Authorization: `Bearer ${sessionToken(english, API_KEY, SECRET)}` },
    });
    const other = await db
      .selectFrom('shops')
      .select('account_id')
      .where('domain', '=', english)
      .executeTakeFirstOrThrow();
    expect(await findAccountLocale(db, other.account_id)).toBe('en');
  });
});
