import { describe, expect, it } from 'vitest';
import { CATALOGUE, keysStartingWith, type PhraseKey } from '../../src/i18n/catalogue.ts';
import { phrase } from '../../src/i18n/phrases.ts';
import { dayText } from '../../src/i18n/dates.ts';
import { interpolate, placeholdersOf } from '../../src/i18n/interpolate.ts';
import {
  acceptedLanguages,
  dateLocale,
  localeSchema,
  LOCALES,
  toLocale,
  visitorLocale,
} from '../../src/i18n/locale.ts';
import { compileMessageTemplates } from '../../src/notifications/messages/message-templates.ts';
import { smsSegments } from '../../src/notifications/messages/sms-segments.ts';
import { localizedValues, type TemplateValues } from '../../src/notifications/messages/templates.ts';
import { UNNAMED_RECIPIENT } from '../../src/orders/recipient.ts';

const english = CATALOGUE.en;
const keys = Object.keys(english) as PhraseKey[];

describe('the catalogue', () => {
  it('has every English key in every language, no other key, and never an empty phrase', () => {
    for (const locale of LOCALES) {
      expect(Object.keys(CATALOGUE[locale]).sort(), locale).toEqual([...keys].sort());
      for (const key of keys) expect(CATALOGUE[locale][key].trim(), `${locale} ${key}`).not.toBe('');
    }
  });

  it('gives each phrase the same placeholders in every language', () => {
    for (const locale of LOCALES)
      for (const key of keys)
        expect(placeholdersOf(CATALOGUE[locale][key]), `${locale} ${key}`).toEqual(placeholdersOf(english[key]));
  });

  it('is translated: no French or Spanish page, script or e-mail phrase is left in English', () => {
    // Phrases that are the same words in every language: a signature, a timer, a quoted title.
    const sameEverywhere = new Set<PhraseKey>(['email_signature']);
    for (const locale of ['fr', 'es'] as const)
      for (const key of keys)
        if (!sameEverywhere.has(key) && english[key].replace(/\{[a-z_]+\}/g, '').trim() !== '')
          expect(CATALOGUE[locale][key], `${locale} ${key}`).not.toBe(english[key]);
  });

  it('fills placeholders once, and refuses a phrase with a hole', () => {
    expect(interpolate('{a} and {b}', { a: '{b}', b: 'x' })).toBe('{b} and x');
    expect(() => interpolate('Hi {name}', {})).toThrow('needs a value for {name}');
    // A name with an override is isolated: the e-mail's subject and the pages' sentences keep their order.
    expect(interpolate('{name} sent you a video', { name: 'Ann\u202E' })).toBe('\u2068Ann\u2069 sent you a video');
  });
});

describe('a file over the size limit', () => {
  it('is said to be too large for its length, with what to do besides recording a shorter one (video probe)', () => {
    expect(interpolate(english.script_too_large, { megabytes: '1024' })).toBe(
      'That video file is too large for its length (the limit is 1024 MB): it was recorded at a very high quality. Record it again in HD (1080p) rather than 4K, or record a shorter one.',
    );
    for (const locale of LOCALES) expect(CATALOGUE[locale].script_too_large, locale).toContain('(1080p)');
  });
});

describe('French elision', () => {
  it('says "d’Élodie", not "de Élodie", before a name that starts with a vowel (gift pages probe)', () => {
    expect(phrase('fr', 'order_default_video_title', { sender_name: 'Élodie' })).toBe('Un message vidéo d’Élodie');
    expect(phrase('fr', 'order_default_video_title', { sender_name: 'anne' })).toBe('Un message vidéo d’anne');
    expect(phrase('fr', 'order_default_video_title', { sender_name: 'Yves' })).toBe('Un message vidéo d’Yves');
    expect(phrase('fr', 'order_default_video_title', { sender_name: 'Marc' })).toBe('Un message vidéo de Marc');
    expect(phrase('fr', 'order_default_video_title', { sender_name: 'Hugo' })).toBe('Un message vidéo de Hugo');
    expect(phrase('fr', 'page_watch_from', { sender_name: 'Ann', store_name: 'Atelier Bleu' })).toBe(
      'Un message vidéo d’Ann, avec un cadeau d’Atelier Bleu',
    );
    // Other languages are left as they are.
    expect(phrase('es', 'order_default_video_title', { sender_name: 'Elena' })).toBe('Un videomensaje de Elena');
  });
});

describe('which language', () => {
  it('reads a language tag as the locale we speak, region tags as their language, anything else as English', () => {
    expect(toLocale('fr-CA')).toBe('fr');
    expect(toLocale('ES_mx')).toBe('es');
    expect(toLocale('pt-BR')).toBe('en');
    expect(toLocale('')).toBe('en');
    expect(localeSchema.parse('fr-FR')).toBe('fr');
    expect(localeSchema.parse('de')).toBe('en');
    expect(localeSchema.safeParse(42).success).toBe(false);
  });

  it('orders Accept-Language by q, drops q=0 and *, and keeps ties in header order', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(acceptedLanguages('en;q=0, es;q=0.2, it')).toEqual(['it', 'es']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(visitorLocale('de-DE, es;q=0.8')).toBe('es');
    expect(visitorLocale('de-DE')).toBe('en');
  });

  it("writes dates as the visitor's browser does in the page's language, else as the page's language does", () => {
    const at = new Date('2026-11-27T02:30:00Z');
    expect(dayText(at, dateLocale('en-GB,en;q=0.9', 'en'), null)).toBe('27 November');
    expect(dayText(at, dateLocale('en-US', 'en'), null)).toBe('November 27');
    expect(dayText(at, dateLocale(undefined, 'fr'), 'America/New_York')).toBe('26 novembre');
    expect(dayText(at, dateLocale('es-MX', 'es'), null)).toBe('27 de noviembre');
    // A German browser on a French page: French dates, not "27. November" inside a French sentence.
    expect(dayText(at, dateLocale('de-DE', 'fr'), null)).toBe('27 novembre');
  });
});

const uuid = '0b7c6a1e-5f3d-4c2a-9e8b-7d6c5b4a3f21';
/** What a French shop's order sends. */
const typical: TemplateValues = {
  store_name: 'Maison Hélène',
  sender_name: 'Amélie Dubois',
  recipient_name: 'Grand-père Joseph',
  recipient_first_name: 'Grand-père',
  video_title: 'Joyeux anniversaire !',
  playback_url: `https://cadeaux.example.fr/watch/${uuid}`,
  record_url: `https://cadeaux.example.fr/record/${uuid}`,
};

describe('a recipient nobody named', () => {
  it('is "your recipient" in the message’s language, as the full name and as the first name', () => {
    const values: TemplateValues = { ...typical, recipient_name: UNNAMED_RECIPIENT, recipient_first_name: 'your' };
    const french = localizedValues(values, 'fr');
    expect(french.recipient_name).toBe('votre destinataire');
    expect(french.recipient_first_name).toBe('votre destinataire');
    expect(localizedValues(values, 'es').recipient_first_name).toBe('tu destinatario');
  });
});

describe('SMS in French and Spanish', () => {
  it('keeps every wording in the GSM-7 alphabet: only the values can make an SMS UCS-2', () => {
    const ascii = {
      store_name: 'S',
      sender_name: 'A',
      recipient_first_name: 'R',
      video_title: 'T',
      playback_url: 'https://x.example/w',
    };
    for (const locale of LOCALES)
      for (const key of keysStartingWith('sms_'))
        expect(smsSegments(interpolate(CATALOGUE[locale][key], ascii)).encoding, `${locale} ${key}`).toBe('GSM-7');
  });

  it('fits one segment with typical French and Spanish values, naming the store', async () => {
    const templates = await compileMessageTemplates();
    const fr = templates.sms('recipient_video', typical, 'fr');
    expect(fr).toBe(
      `Maison Hélène : Amélie Dubois vous envoie un message vidéo avec votre colis : ${typical.playback_url}`,
    );
    expect(smsSegments(fr)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    // A shorter title fits the fullest wording.
    const titled = templates.sms('recipient_video', { ...typical, video_title: 'Bisous !' }, 'fr');
    expect(titled).toContain('"Bisous !"');
    expect(smsSegments(titled)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    const es = templates.sms(
      'recipient_video',
      { ...typical, store_name: 'Casa Nuñez', sender_name: 'Inés', video_title: 'Feliz cumpleaños' },
      'es',
    );
    expect(es.startsWith('Casa Nuñez: Inés te manda un mensaje de video')).toBe(true);
    expect(smsSegments(es)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it("fits the sender's not-watched note in one GSM-7 segment in French and Spanish, naming the store", async () => {
    const templates = await compileMessageTemplates();
    for (const locale of ['fr', 'es'] as const) {
      const text = templates.sms('sender_not_watched_note', typical, locale);
      expect(text.startsWith('Maison Hélène'), `${locale}: ${text}`).toBe(true);
      expect(text, locale).toContain('Grand-père');
      expect(smsSegments(text), `${locale}: ${text}`).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    }
    // The fullest French wording fits with these values; a longer store name takes a shorter one.
    expect(templates.sms('sender_not_watched_note', typical, 'fr')).toBe(
      "Maison Hélène : Grand-père n'a pas encore regardé votre message vidéo. S'il l'a manqué, contactez Maison Hélène pour un nouvel envoi.",
    );
  });

  it('says why a name with ç cannot fit: it makes the SMS UCS-2 (70 units), and the shortest wording still names the store', async () => {
    const templates = await compileMessageTemplates();
    const text = templates.sms('recipient_video', { ...typical, sender_name: 'François' }, 'fr');
    // ç is not in GSM-7 (only Ç is): the whole text goes UCS-2, and the URL alone is 60 of its 70 units.
    expect(smsSegments(text).encoding).toBe('UCS-2');
    expect(text).toBe(`Maison Hélène : un message vidéo de François : ${typical.playback_url}`);
    expect(smsSegments(text).segments).toBe(2);
  });
});
