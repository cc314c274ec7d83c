import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountLocale, setAccountLocale } from '../../src/accounts/locale.ts';
import { compileMessageTemplates } from '../../src/notifications/messages/message-templates.ts';
import { smsSegments } from '../../src/notifications/messages/sms-segments.ts';
import type { TemplateValues } from '../../src/notifications/messages/templates.ts';
import { decodedMail, startMailServer, type ReceivedMail } from '../support/mail-server.ts';
import { validOrder, type TestAccount } from '../support/test-app.ts';
import { eventually } from '../support/workers.ts';
import { fixture, startVideoTestApp, type VideoTestApp } from '../videos/video-test-app.ts';
import { API_KEY, SECRET, startShopifyTestAppWithFakeShopify } from '../shopify/harness.ts';
import { sessionToken } from '../shopify/session-token.ts';
import { sendInOneRequest } from '../support/resumable-upload.ts';

/**
 * A shop that speaks French or Spanish: its record and watch pages and its e-mails are in that
 * language (real PGlite, real workers, the in-process SMTP server), and a Shopify shop's language is
 * its primary locale, read from Shopify at install.
 */
const WEBM = fixture('recorded-vp8-opus.webm');

/** A message's body as text: quoted-printable undone, then read as the UTF-8 it is. */
const mailText = (raw: string) => Buffer.from(decodedMail(raw), 'latin1').toString('utf8');

/** A message's subject as it reads: MIME encoded-words (used when it is not ASCII) decoded. */
function subjectOf(raw: string): string {
  const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return subject
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
    )
    .trim();
}

describe('a French or Spanish shop', () => {
  let app: VideoTestApp;
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  beforeAll(async () => {
    mail = await startMailServer();
    // No undo window for the thank-you: the sender's e-mail leaves at the next dispatch.
    app = await startVideoTestApp({ queue: 'bullmq', env: { SMTP_URL: mail.url, THANKS_SEND_DELAY_SECONDS: '0' } });
  });
  afterAll(async () => {
    await app.close();
    await mail.close();
  });

  /** The order's watch page, once it shows `marker` (the workers get there in their own time). */
  const watchPageShowing = (uuid: string, marker: string, what: string) =>
    eventually(
      async () => {
        const page = await app.request('GET', `/watch/${uuid}`);
        return page.text.includes(marker) ? page : undefined;
      },
      15_000,
      what,
    );
  /** The first e-mail that `matches`, once it arrived. */
  const mailWhere = (matches: (message: ReceivedMail) => boolean, what: string) =>
    eventually(async () => mail.messages.find(matches), 15_000, what);

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
      // "de" elided before the vowel (gift pages probe: "de Élodie").
      onItsWay: 'Un message vidéo d’Ann Sender est en route.',
      watch: 'Un message vidéo d’<strong id="sender">Ann Sender</strong>, avec un cadeau de Boutique fr-FR',
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
      const watch = await watchPageShowing(order.uuid, '<video id="message"', 'the watch page with the video');
      expect(watch.text).toContain(`<html lang="${c.lang}">`);
      expect(watch.text).toContain(c.watch);

      await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
      const message = await mailWhere((m) => m.to.includes(email), 'the recipient e-mail');
      const text = mailText(message.raw);
      for (const words of c.body) expect(text).toContain(words);
      expect(text).toContain(`lang="${c.lang}"`);
      expect(text).not.toContain('Watch the video');
      expect(subjectOf(message.raw)).toBe(c.subject);
    });
  }

  it("fr: the captions, the thank-you section, the sender's thank-you e-mail and page speak it", async () => {
    const store = await shopIn('fr');
    const sender = `amelie-${Date.now()}@example.com`;
    const order = (
      await store.request('POST', '/v1/orders', {
        ...validOrder,
        email: sender,
        recipient_name: 'Mamie Jeanne',
        recipient_email: `mamie-merci-${Date.now()}@example.com`,
      })
    ).body;
    const record = await app.request('GET', `/record/${order.uuid}`);
    expect(record.text).toContain('Ce que vous dites (affiché en sous-titres)');
    expect(record.text).toContain('Ses sous-titres n’ont pas pu être enregistrés.');
    expect(record.text).not.toContain('What you say');

    const upload = await sendInOneRequest(app, `/record/${order.uuid}/uploads`, WEBM, 'video/webm');
    expect(upload.status).toBe(201);
    expect(
      (await app.request('PUT', upload.body.transcript_url, { body: { transcript: 'Bon anniversaire !' } })).status,
    ).toBe(200);
    const watch = await watchPageShowing(order.uuid, '<video id="message"', 'the watch page with the video');
    // The captions track is in the page's language: the sender typed in the store's.
    expect(watch.text).toContain(
      `<track kind="captions" src="/watch/${order.uuid}/captions.vtt" srclang="fr" label="Sous-titres" default>`,
    );

    await store.request('PUT', `/v1/orders/${order.id}`, { delivered: 1 });
    const invited = await watchPageShowing(
      order.uuid,
      'id="thanks-heading"',
      'the watch page with its thank-you section',
    );
    for (const words of [
      '<h2 id="thanks-heading">Dites merci</h2>',
      'Enregistrez une courte vidéo ou écrivez un mot en retour à Ann Sender.',
      'Envoyer la vidéo de remerciement',
      'Ou écrivez un mot',
      'Envoyer le mot',
      // The reply form's script gets its words through the page data.
      'Écrivez d’abord quelques mots.',
      'Votre mot n’a pas été envoyé',
    ])
      expect(invited.text).toContain(words);
    expect(invited.text).not.toContain('Say thank you');

    const note = await app.request('PUT', `/watch/${order.uuid}/thanks/note`, {
      body: { note: 'Merci mille fois !' },
    });
    expect(note.status).toBe(200);
    const message = await mailWhere(
      (m) => m.to.includes(sender) && subjectOf(m.raw).includes('remerciement'),
      "the sender's thank-you e-mail",
    );
    expect(subjectOf(message.raw)).toBe('Mamie Jeanne vous a envoyé un remerciement');
    const text = mailText(message.raw);
    for (const words of [
      'lang="fr"',
      'Bonjour Ann Sender,',
      'Mamie Jeanne a regardé votre message vidéo',
      '«\u00a0Merci mille fois !\u00a0»',
      'Voir le remerciement',
      'Voyez-le ici',
    ])
      expect(text).toContain(words);
    expect(text).not.toContain('See the thank-you');

    const sent = await watchPageShowing(
      order.uuid,
      'Votre mot de remerciement a été envoyé à Ann Sender.',
      'the watch page saying the thank-you went',
    );
    expect(sent.text).toContain('<html lang="fr">');

    const reply = await app.services.database.db
      .selectFrom('thanks')
      .select('key')
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow();
    const thanksPage = await app.request('GET', `/thanks/${reply.key}`);
    expect(thanksPage.text).toContain('<html lang="fr">');
    expect(thanksPage.text).toContain('<h1 class="title">Un merci de Mamie Jeanne</h1>');
    expect(thanksPage.text).toContain('aria-label="Le mot de Mamie Jeanne">Merci mille fois !</blockquote>');
    const missing = await app.request('GET', '/thanks/no-such-key', { headers: { 'Accept-Language': 'fr-FR' } });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Nous ne trouvons pas ce remerciement');
  });

  it("fr: the sender's bounce note and not-watched note (e-mail and SMS) are rendered in it", async () => {
    const templates = await compileMessageTemplates();
    const uuid = '0b7c6a1e-5f3d-4c2a-9e8b-7d6c5b4a3f21';
    const values: TemplateValues = {
      store_name: 'Maison Hélène',
      sender_name: 'Amélie',
      recipient_name: 'Mamie Jeanne',
      recipient_first_name: 'Mamie',
      video_title: 'Bon anniversaire',
      playback_url: `https://cadeaux.example.fr/watch/${uuid}`,
      record_url: `https://cadeaux.example.fr/record/${uuid}`,
    };
    const bounce = templates.email('sender_bounce_note', values, 'fr');
    expect(bounce.subject).toBe('Votre message vidéo pour Mamie Jeanne n’est pas arrivé');
    expect(bounce.text).toContain('Bonjour Amélie,');
    expect(bounce.text).toContain('mais son serveur de messagerie l’a renvoyé');
    expect(bounce.html).toContain('lang="fr"');
    expect(bounce.html).toContain('Maison Hélène a été prévenu');

    const late = templates.email('sender_not_watched_note', values, 'fr');
    expect(late.subject).toBe('Mamie n’a pas encore regardé votre message vidéo');
    expect(late.text).toContain('il y a trois jours');
    expect(late.text).toContain('Nous vous dirons quand il aura été regardé.');
    expect(late.html).toContain('lang="fr"');
    expect(late.html).not.toContain("hasn't");

    const sms = templates.sms('sender_not_watched_note', values, 'fr');
    expect(sms).toBe(
      "Maison Hélène : Mamie n'a pas encore regardé votre message vidéo. S'il l'a manqué, contactez Maison Hélène pour un nouvel envoi.",
    );
    expect(smsSegments(sms)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

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
