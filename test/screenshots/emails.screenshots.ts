import path from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { compileMessageTemplates, type MessageTemplates } from '../../src/notifications/messages/message-templates.ts';
import type { TemplateName, TemplateValues } from '../../src/notifications/messages/templates.ts';
import { chromiumForFile } from '../support/chromium.ts';
import { projectRoot } from '../support/processes.ts';

/**
 * The e-mails as a phone (390×844) and a desktop mail client (1280 wide) show them, for
 * docs/notifications.md (`npm run screenshots`). Rendered from the compiled templates with an
 * order's values without a logo or poster (the fallbacks): the store's name and the play button show.
 */
const values: TemplateValues = {
  store_name: 'Maple & Thread',
  sender_name: 'Ann Lee',
  recipient_name: 'Grandpa Joe',
  recipient_first_name: 'Grandpa',
  video_title: 'Happy 80th birthday!',
  playback_url: 'https://gifts.maplethread.example/watch/0b7c6a1e-5f3d-4c2a-9e8b-7d6c5b4a3f21',
  record_url: 'https://gifts.maplethread.example/record/0b7c6a1e-5f3d-4c2a-9e8b-7d6c5b4a3f21',
};
const shots: [TemplateName, string][] = [
  ['recipient_video', 'email-recipient-video'],
  ['sender_record_link', 'email-record-link'],
  ['sender_not_watched_note', 'email-not-watched'],
];
const widths = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };

let browser: Browser;
let templates: MessageTemplates;
beforeAll(async () => {
  templates = await compileMessageTemplates();
});
chromiumForFile((launched) => (browser = launched));

it('the recipient video, record-link and not-watched e-mails on a phone and a desktop', async () => {
  for (const [name, file] of shots) {
    for (const [device, viewport] of Object.entries(widths)) {
      const page = await browser.newPage({ viewport });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.setContent(templates.email(name, values).html, { waitUntil: 'load' });
      await page.screenshot({
        path: path.join(projectRoot, 'docs', 'screenshots', `${file}-${device}.png`),
        fullPage: device === 'phone',
      });
      // An opened e-mail asks no one for anything (no web fonts, no images we did not put there).
      expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
      await page.close();
    }
  }
});
