import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeBranding } from '../../src/accounts/store-branding.ts';
import {
  compileMessageTemplates,
  TEMPLATE_DIR,
  type MessageTemplates,
} from '../../src/notifications/messages/message-templates.ts';
import { smsSegments } from '../../src/notifications/messages/sms-segments.ts';
import { MessageTemplateError, UnknownPlaceholderError } from '../../src/notifications/messages/template-errors.ts';
import { occasionOf, render, TEMPLATE_NAMES, type TemplateValues } from '../../src/notifications/messages/templates.ts';

const uuid = '0b7c6a1e-5f3d-4c2a-9e8b-7d6c5b4a3f21';
/** What a real order sends: a store, a sender, a recipient, a title, our public URLs. */
const realistic: TemplateValues = {
  store_name: 'Maple & Thread',
  sender_name: 'Ann Lee',
  recipient_name: 'Grandpa Joe',
  recipient_first_name: 'Grandpa',
  video_title: 'Happy 80th birthday!',
  playback_url: `https://gifts.maplethread.example/watch/${uuid}`,
  record_url: `https://gifts.maplethread.example/record/${uuid}`,
};
const withOptionals: TemplateValues = {
  ...realistic,
  store_logo_url: 'https://cdn.maplethread.example/logo.png',
  poster_url: `https://gifts.maplethread.example/posters/${uuid}.jpg`,
};

/** The hidden preview text MJML puts first in the body. */
const preheaderOf = (html: string) => /<div style="display:none;[^"]*">([^<]*)/.exec(html)?.[1]?.trim() ?? '';

let templates: MessageTemplates;
beforeAll(async () => {
  templates = await compileMessageTemplates();
});

describe('render', () => {
  it('fills placeholders and escapes them for HTML', () => {
    expect(
      render('<p>{{sender_name}}</p>', { sender_name: '<b>Ann & "Co"</b>' }, (v) =>
        v.replace(/&/g, '&amp;').replace(/</g, '&lt;'),
      ),
    ).toBe('<p>&lt;b>Ann &amp; "Co"&lt;/b></p>');
    expect(render('Hi {{ recipient_name }}', { recipient_name: 'Bob' })).toBe('Hi Bob');
    expect(render('{{sender_name}} sent you a video', { sender_name: 'Ann\u202E' })).toBe(
      '\u2068Ann\u2069 sent you a video',
    );
  });

  it('throws on a placeholder without a value instead of sending the braces', () => {
    expect(() => render('Hi {{recipient_name}} {{unknown}}', { recipient_name: 'Bob' })).toThrow(
      UnknownPlaceholderError,
    );
    expect(() => render('Hi {{unknown}}', {})).toThrow('{{unknown}} has no value');
    expect(() => render('Hi {{ Recipient-Name }}', { recipient_name: 'Bob' })).toThrow(UnknownPlaceholderError);
    expect(() => render('{{#sender_name}}x{{/sender_name}}', { sender_name: 'Ann' })).toThrow(/not optional/);
  });

  it('keeps a {{#section}} only with its value and a {{^section}} only without it', () => {
    const text = '{{#poster_url}}<img src="{{poster_url}}">{{/poster_url}}{{^poster_url}}▶{{/poster_url}}';
    expect(render(text, { poster_url: 'p.jpg' })).toBe('<img src="p.jpg">');
    expect(render(text, {})).toBe('▶');
    expect(render(text, { poster_url: '' })).toBe('▶');
  });

  it("leaves a customer's braces as text: values are not filled again", () => {
    expect(render('{{sender_name}}', { sender_name: '{{record_url}}', record_url: 'secret' })).toBe('{{record_url}}');
  });
});

describe('every e-mail template', () => {
  for (const name of TEMPLATE_NAMES) {
    describe(name, () => {
      it('fills every placeholder, with and without the optional values', () => {
        for (const values of [realistic, withOptionals]) {
          const email = templates.email(name, values);
          for (const part of [email.subject, email.text, email.html]) {
            expect(part).not.toContain('{{');
            expect(part).not.toContain('}}');
          }
          expect(email.subject.length).toBeGreaterThan(0);
          expect(email.subject).not.toContain('\n');
        }
      });

      it('has a plain-text part, a preheader and the store at the top of the HTML', () => {
        const email = templates.email(name, realistic);
        expect(email.text).toMatch(/^Hi (Ann Lee|Grandpa Joe),/);
        expect(email.text).toContain('— Maple & Thread');
        expect(preheaderOf(email.html).length).toBeGreaterThan(20);
        expect(preheaderOf(email.html)).not.toBe(email.subject);
        const body = email.html.slice(email.html.indexOf('<body'));
        // The store's name comes before anything of the message (only the preheader is earlier).
        expect(body.indexOf('Maple &amp; Thread')).toBeGreaterThan(-1);
        expect(body.indexOf('Maple &amp; Thread')).toBeLessThan(body.indexOf('Hi '));
        expect(email.html).not.toContain('<img');
        expect(email.html).toContain('<html lang="en"');
      });

      it('shows the store logo when one is known', () => {
        const email = templates.email(name, withOptionals);
        expect(email.html).toMatch(
          /<img[^>]+alt="Maple &amp; Thread"[^>]+src="https:\/\/cdn.maplethread.example\/logo.png"/,
        );
      });

      it('escapes hostile values in the HTML and keeps them readable in the text', () => {
        const hostile: TemplateValues = {
          ...withOptionals,
          store_name: `Tom's "Tools" & <Co>`,
          sender_name: '<script>alert(1)</script>',
          recipient_name: `O'Brien & "Sons"`,
          video_title: '</a><img src=x onerror=alert(2)>',
          store_logo_url: 'https://cdn.example/logo.png" onerror="alert(3)',
        };
        const email = templates.email(name, hostile);
        expect(email.html).not.toContain('<script');
        expect(email.html).not.toContain('<img src=x');
        expect(email.html).not.toContain('" onerror="');
        expect(email.html).not.toMatch(/<Co>|"Tools"|"Sons"/);
        expect(email.html).toContain('Tom&#39;s &quot;Tools&quot; &amp; &lt;Co&gt;');
        // The text part is not HTML: values stay as typed.
        expect(email.text).not.toMatch(/&lt;|&amp;|&quot;|&#39;/);
        expect(email.text).toMatch(/<script>alert\(1\)<\/script>|O'Brien & "Sons"/);
      });
    });
  }

  it('makes the poster frame the call to action of the video e-mail, or a play button until there is one', () => {
    const withPoster = templates.email('recipient_video', withOptionals).html;
    expect(withPoster).toMatch(
      new RegExp(
        `<a\\s+href="${withOptionals.playback_url}"[^>]*>\\s*<img[^>]+alt="Play the video message from Ann Lee"[^>]+src="${withOptionals.poster_url}"`,
      ),
    );
    expect(withPoster).not.toContain('&#9654;');
    const withoutPoster = templates.email('recipient_video', realistic).html;
    expect(withoutPoster).not.toContain('/posters/');
    expect(withoutPoster).toMatch(/title="Play the video message"/);
    expect(withoutPoster).toMatch(
      /<a\s+href="[^"]+\/watch\/[^"]+"[^>]*>\s*▶|<a\s+href="[^"]+\/watch\/[^"]+"[^>]*>\s*&#9654;/,
    );
    // The button: the watch link with the button's own text.
    expect(withoutPoster).toMatch(/<a\s+href="[^"]+\/watch\/[^"]+"[^>]*>\s*Watch the video\s*<\/a>/);
  });

  it('asks the sender to record with a button to the record page', () => {
    for (const name of ['sender_record_link', 'sender_record_link_needs_recipient'] as const) {
      const email = templates.email(name, realistic);
      expect(email.html).toMatch(
        /<a\s+href="[^"]+\/record\/[^"]+"[^>]*>\s*(Record your video|Add the recipient and record)\s*<\/a>/,
      );
      expect(email.text).toContain(realistic.record_url);
    }
  });

  it("never links the sender's notes to the watch page, where a play would count as the recipient's view", () => {
    for (const name of ['sender_sent_note', 'sender_viewed_note'] as const) {
      expect(templates.email(name, withOptionals).html).not.toContain('/watch/');
    }
  });
});

describe('what the messages say of the package (merchant probe: "Your package has arrived" on a gift that had not shipped)', () => {
  it('says the package arrived only when it has, or when the video goes on delivery', () => {
    expect(occasionOf({ delivered: false, send_trigger: 'package' })).toBe('arrival');
    expect(occasionOf({ delivered: true, send_trigger: 'now' })).toBe('arrival');
    expect(occasionOf({ delivered: false, send_trigger: 'now' })).toBe('now');
    expect(occasionOf({ delivered: false, send_trigger: 'date' })).toBe('date');
  });

  it('a video sent before its package: the recipient, the sender and the SMS hear of a gift, not an arrival, in every language', () => {
    for (const occasion of ['now', 'date'] as const) {
      const values = { ...realistic, occasion };
      for (const locale of ['en', 'fr', 'es'] as const) {
        const recipient = templates.email('recipient_video', values, locale);
        const sent = templates.email('sender_sent_note', values, locale);
        for (const part of [recipient.text, recipient.html, sent.text, sent.html, preheaderOf(recipient.html)])
          expect(part, `${occasion} ${locale}`).not.toMatch(/arrived|reached|arrivé|llegó|package|colis|paquete/i);
        expect(templates.sms('recipient_video', values, locale)).not.toMatch(/package|colis|paquete/i);
      }
      expect(templates.email('recipient_video', values).text).toContain(
        'Ann Lee recorded a video message for you, to go with your gift from Maple & Thread:',
      );
      expect(templates.email('sender_sent_note', values).text).toContain(
        'We just sent Grandpa Joe your video message “Happy 80th birthday!”.',
      );
    }
    // The record link says when it will go: right away, or on the chosen day.
    expect(templates.email('sender_record_link', { ...realistic, occasion: 'now' }).text).toContain(
      'We’ll send it to them as soon as it is ready.',
    );
    expect(templates.email('sender_record_link', { ...realistic, occasion: 'date' }).text).toContain(
      'We’ll send it to them on the day chosen for it.',
    );
    expect(templates.email('sender_record_link_needs_recipient', { ...realistic, occasion: 'now' }).text).toContain(
      'we’ll send it as soon as it is ready.',
    );
  });

  it('a video sent on delivery still says the package arrived', () => {
    const values = { ...realistic, occasion: 'arrival' as const };
    expect(templates.email('recipient_video', values).text).toContain(
      'Your package from Maple & Thread has arrived, and Ann Lee recorded a video message to go with it:',
    );
    expect(templates.email('sender_record_link', values).text).toContain(
      'We’ll send it to them the moment the package arrives.',
    );
    expect(templates.email('sender_sent_note', values, 'fr').text).toContain('Votre colis est arrivé chez Grandpa Joe');
  });
});

describe("the sender's not-watched note", () => {
  it('names the store and the recipient by first name, offers a resend through the store, and has no watch link', async () => {
    const templates = await compileMessageTemplates();
    const mail = templates.email('sender_not_watched_note', realistic);
    expect(mail.subject).toBe("Grandpa hasn't watched your video message yet");
    for (const part of [mail.text, mail.html]) {
      expect(part).toMatch(/contact Maple (&amp;|&) Thread/);
      // A play by the sender would count as the recipient's view.
      expect(part).not.toContain(realistic.playback_url);
    }
    const sms = templates.sms('sender_not_watched_note', realistic);
    expect(sms).toMatch(/^Maple & Thread: Grandpa hasn't watched your video/);
    expect(smsSegments(sms)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });
});

describe('the recipient SMS', () => {
  it('names the store and fits one GSM-7 segment with typical values, title included when it fits', () => {
    const short = { ...realistic, playback_url: `https://mt.example/watch/${uuid}` };
    const body = templates.sms('recipient_video', short);
    expect(body).toBe(
      `Maple & Thread: Ann Lee sent you a video message "Happy 80th birthday!" with your package: ${short.playback_url}`,
    );
    expect(smsSegments(body)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('drops the title first when the whole would need a second segment', () => {
    const body = templates.sms('recipient_video', {
      ...realistic,
      video_title: 'For the best grandpa in the whole wide world',
    });
    expect(body).toBe(
      `Maple & Thread: Ann Lee sent you a video message with your package. Watch it: ${realistic.playback_url}`,
    );
    expect(smsSegments(body)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('writes a phone keyboard’s typographic marks in a name or title as GSM-7 ones: one segment, not a UCS-2 two (recipient probe)', () => {
    const short = { ...realistic, playback_url: `https://mt.example/watch/${uuid}` };
    const body = templates.sms('recipient_video', {
      ...short,
      sender_name: 'Mary O’Neil',
      video_title: '“Hi” – you…',
    });
    expect(body).toBe(
      `Maple & Thread: Mary O'Neil sent you a video message ""Hi" - you..." with your package: ${short.playback_url}`,
    );
    expect(smsSegments(body)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('takes the shortest wording when a name makes it UCS-2, and still names the store and links the video', () => {
    const body = templates.sms('recipient_video', { ...realistic, sender_name: 'Ann 🎁', recipient_name: 'Joe' });
    expect(body).toBe(`Maple & Thread: a video message from Ann 🎁: ${realistic.playback_url}`);
    expect(smsSegments(body).encoding).toBe('UCS-2');
    const fuller = `Maple & Thread: Ann 🎁 sent you a video message with your package. Watch it: ${realistic.playback_url}`;
    expect(smsSegments(body).segments).toBeLessThan(smsSegments(fuller).segments);
  });
});

describe('compileMessageTemplates', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
  });

  function brokenCopy(file: string, edit: (text: string) => string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-templates-'));
    copies.push(dir);
    fs.cpSync(TEMPLATE_DIR, dir, { recursive: true });
    const target = path.join(dir, file);
    fs.writeFileSync(target, edit(fs.readFileSync(target, 'utf8')));
    return dir;
  }

  it('refuses MJML that breaks its rules, in one line naming the file and the problem', async () => {
    const dir = brokenCopy('recipient_video.mjml', (t) =>
      t.replace('<mj-button href', '<mj-button shape="round" href'),
    );
    const error = await compileMessageTemplates(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTemplateError);
    expect((error as Error).message).toMatch(/^E-mail template recipient_video\.mjml is not valid MJML: .*shape/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('refuses an unknown tag and a missing include', async () => {
    const unknownTag = brokenCopy('sender_sent_note.mjml', (t) =>
      t.replace('<mj-text>{{email_hi_sender}}', '<mj-txt>x</mj-txt><mj-text>{{email_hi_sender}}'),
    );
    await expect(compileMessageTemplates(unknownTag)).rejects.toThrow(
      /sender_sent_note\.mjml is not valid MJML: .*mj-txt/,
    );
    const missing = brokenCopy('sender_viewed_note.mjml', (t) =>
      t.replace('./partials/head.mjml', './partials/nope.mjml'),
    );
    await expect(compileMessageTemplates(missing)).rejects.toThrow(
      /sender_viewed_note\.mjml is not valid MJML: .*nope\.mjml/,
    );
  });

  it('refuses a placeholder that has no value, in any part', async () => {
    const text = brokenCopy('sender_record_link.txt', (t) => `${t}{{recipient_nmae}}\n`);
    await expect(compileMessageTemplates(text)).rejects.toThrow(
      'Message template sender_record_link.txt: {{recipient_nmae}} has no value',
    );
    const html = brokenCopy('recipient_video.mjml', (t) => t.replace('{{email_hi_recipient}}', 'Hi {{recipient}}'));
    await expect(compileMessageTemplates(html)).rejects.toThrow(
      'Message template recipient_video.mjml: {{recipient}} has no value',
    );
    const sms = brokenCopy('recipient_video.sms.txt', (t) =>
      t.replace('{{sms_recipient_video_full}}', '{{shop_name}}'),
    );
    await expect(compileMessageTemplates(sms)).rejects.toThrow('recipient_video.sms.txt: {{shop_name}} has no value');
  });

  it('refuses to start without the SMS template of a message that can go by SMS', async () => {
    const dir = brokenCopy('recipient_video.sms.txt', (t) => t);
    fs.rmSync(path.join(dir, 'recipient_video.sms.txt'));
    await expect(compileMessageTemplates(dir)).rejects.toThrow(
      'Message template recipient_video.sms.txt cannot be read: ENOENT',
    );
  });
});

describe('storeBranding', () => {
  it("is the account's name, a shop domain's handle in words, or Doorstep when there is no account", () => {
    expect(storeBranding({ name: 'Maple & Thread', locale: 'fr' })).toEqual({
      name: 'Maple & Thread',
      logoUrl: null,
      locale: 'fr',
      brand: { accentColor: null, font: null },
      contactEmail: null,
    });
    expect(storeBranding({ name: 'maple-and-thread.myshopify.com', locale: 'en' }).name).toBe('Maple And Thread');
    expect(storeBranding(undefined).name).toBe('Doorstep');
  });
});
