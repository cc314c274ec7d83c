import fs from 'node:fs';
import path from 'node:path';
import escapeHtml from 'escape-html';
import type { OrderRow } from '../orders/serializer.ts';
import { playbackUrl, recordUrl } from '../orders/serializer.ts';
import type { SendKind } from '../vocabulary.ts';

/**
 * Message templates are plain files in ./templates (`{kind}.subject.txt`, `{kind}.txt`,
 * `{kind}.html`, `{kind}.sms.txt`) with `{{placeholders}}`, so a merchant's own wording can later
 * replace them without code. HTML templates get every value HTML-escaped.
 */
const templateDir = path.join(import.meta.dirname, 'templates');
const cache = new Map<string, string>();

function template(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = fs.readFileSync(path.join(templateDir, file), 'utf8');
    cache.set(file, text);
  }
  return text;
}

export type TemplateValues = Record<string, string>;

export function render(text: string, values: TemplateValues, escape: (value: string) => string = (v) => v): string {
  return text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : escape(value);
  });
}

export function templateValues(order: OrderRow, publicUrl: string): TemplateValues {
  return {
    sender_name: order.name,
    recipient_name: order.recipient_name,
    video_title: order.video_title,
    playback_url: playbackUrl(publicUrl, order.uuid),
    record_url: recordUrl(publicUrl, order.uuid),
  };
}

/**
 * The template for a message: the kind's own, except the record link for an order still waiting
 * for its recipient, which asks the sender for one.
 */
export type TemplateName = SendKind | 'sender_record_link_needs_recipient';

export function emailTemplateFor(
  kind: SendKind,
  order: Pick<OrderRow, 'recipient_email' | 'recipient_phone'>,
): TemplateName {
  if (kind === 'sender_record_link' && order.recipient_email === null && order.recipient_phone === null)
    return 'sender_record_link_needs_recipient';
  return kind;
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

export function renderEmail(kind: TemplateName, values: TemplateValues): EmailContent {
  return {
    subject: render(template(`${kind}.subject.txt`), values).trim(),
    text: render(template(`${kind}.txt`), values),
    html: render(template(`${kind}.html`), values, escapeHtml),
  };
}

export function renderSms(kind: SendKind, values: TemplateValues): string {
  return render(template(`${kind}.sms.txt`), values).trim();
}
