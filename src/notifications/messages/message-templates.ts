import fs from 'node:fs';
import path from 'node:path';
import escapeHtml from 'escape-html';
import mjml2html from 'mjml';
import type { SendKind } from '../../vocabulary.ts';
import { brandEmailHtml } from '../../design/email-style.ts';
import type { Brand } from '../../design/tokens.ts';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../i18n/locale.ts';
import { MessageTemplateError, UnknownPlaceholderError } from './template-errors.ts';
import {
  OPTIONAL_VALUES,
  SMS_TEMPLATE_KINDS,
  TEMPLATE_NAMES,
  fitSms,
  localizedValues,
  render,
  type TemplateName,
  type TemplateValues,
} from './templates.ts';

export const TEMPLATE_DIR = path.join(import.meta.dirname, 'templates');

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * Every message's wording, compiled and checked once at start (`compileMessageTemplates`), in the
 * account's language (the catalogue's phrases, src/i18n/catalogue.ts; English when not given).
 */
export interface MessageTemplates {
  /** `brand`: the store's accent and font (src/design/email-style.ts); absent, Doorstep's. */
  email(name: TemplateName, values: TemplateValues, locale?: Locale, brand?: Partial<Brand>): EmailContent;
  sms(kind: SendKind, values: TemplateValues, locale?: Locale): string;
}

interface EmailParts {
  subject: string;
  text: string;
  /** MJML compiled to HTML, placeholders still in it. */
  html: string;
}

/** Values for the start-up check that every placeholder a template names exists. */
const CHECK_VALUES: TemplateValues = {
  store_name: 'store',
  sender_name: 'sender',
  recipient_name: 'recipient',
  recipient_first_name: 'recipient',
  video_title: 'title',
  playback_url: 'https://doorstep.invalid/watch/x',
  record_url: 'https://doorstep.invalid/record/x',
  store_logo_url: 'https://doorstep.invalid/logo.png',
  poster_url: 'https://doorstep.invalid/poster.jpg',
  thanks_url: 'https://doorstep.invalid/thanks/x',
  thanks_poster_url: 'https://doorstep.invalid/thanks/x/poster',
  thanks_note: 'Thank you!',
};
const CHECK_VALUES_WITHOUT_OPTIONALS = Object.fromEntries(
  Object.entries(CHECK_VALUES).filter(([name]) => !OPTIONAL_VALUES.has(name)),
) as unknown as TemplateValues;

/**
 * Reads every template in `dir`: each e-mail is `{name}.mjml` (compiled here, once, to HTML),
 * `{name}.subject.txt` and `{name}.txt` (the plain-text part); an SMS is `{kind}.sms.txt`. A template
 * that does not compile, breaks MJML's rules (strict validation) or names an unknown placeholder
 * throws a MessageTemplateError whose one-line message names the file: the process does not start.
 */
export async function compileMessageTemplates(dir: string = TEMPLATE_DIR): Promise<MessageTemplates> {
  const emails = new Map<TemplateName, EmailParts>();
  for (const name of TEMPLATE_NAMES) {
    const parts: EmailParts = {
      subject: readTemplate(dir, `${name}.subject.txt`),
      text: readTemplate(dir, `${name}.txt`),
      html: await compileMjml(dir, `${name}.mjml`),
    };
    for (const [file, text] of [
      [`${name}.subject.txt`, parts.subject],
      [`${name}.txt`, parts.text],
      [`${name}.mjml`, parts.html],
    ] as const) {
      checkPlaceholders(file, (values) => render(text, values));
    }
    emails.set(name, parts);
  }
  const sms = new Map<string, string>();
  for (const kind of SMS_TEMPLATE_KINDS) {
    const file = `${kind}.sms.txt`;
    const text = readTemplate(dir, file);
    checkPlaceholders(file, (values) => fitSms(text, values));
    sms.set(kind, text);
  }

  return {
    email(name, values, locale = DEFAULT_LOCALE, brand) {
      const parts = emails.get(name);
      if (!parts) throw new MessageTemplateError(`There is no e-mail template ${name}.`);
      const localized = localizedValues(values, locale);
      return {
        subject: render(parts.subject, localized).trim(),
        text: render(parts.text, localized),
        html: brandEmailHtml(render(parts.html, localized, escapeHtml), brand),
      };
    },
    sms(kind, values, locale = DEFAULT_LOCALE) {
      const text = sms.get(kind);
      if (text === undefined) throw new MessageTemplateError(`There is no SMS template ${kind}.sms.txt.`);
      return fitSms(text, localizedValues(values, locale));
    },
  };
}

function readTemplate(dir: string, file: string): string {
  try {
    return fs.readFileSync(path.join(dir, file), 'utf8');
  } catch (error) {
    throw new MessageTemplateError(
      `Message template ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

async function compileMjml(dir: string, file: string): Promise<string> {
  const source = readTemplate(dir, file);
  checkIncludes(dir, file, source);
  let result: Awaited<ReturnType<typeof mjml2html>>;
  try {
    result = await mjml2html(source, {
      // Strict: a misspelt tag or attribute, or an include that is not there, stops the start
      // rather than sending a mail that renders wrong.
      validationLevel: 'strict',
      filePath: path.join(dir, file),
      ignoreIncludes: false,
      includePath: dir,
      keepComments: false,
      // No web fonts: a font request from every opened mail would tell a third party who read it.
      fonts: {},
    });
  } catch (error) {
    const errors = (error as { errors?: { formattedMessage?: string; message?: string }[] }).errors;
    const detail = errors?.length
      ? errors.map((e) => (e.formattedMessage ?? e.message ?? '').replace(/\s+/g, ' ').trim()).join('; ')
      : error instanceof Error
        ? error.message.replace(/\s+/g, ' ').trim()
        : String(error);
    throw new MessageTemplateError(`E-mail template ${file} is not valid MJML: ${detail}`);
  }
  return result.html;
}

/**
 * MJML leaves an include it cannot read out of the mail without an error, even when strict; a
 * missing partial would send e-mails without the store's header, so it stops the start here.
 */
function checkIncludes(dir: string, file: string, source: string): void {
  for (const [, include] of source.matchAll(/<mj-include\s+path="([^"]+)"/g)) {
    const target = path.resolve(path.dirname(path.join(dir, file)), include!);
    if (!fs.existsSync(target))
      throw new MessageTemplateError(
        `E-mail template ${file} is not valid MJML: it includes ${include}, which is not there`,
      );
    checkIncludes(dir, path.relative(dir, target), fs.readFileSync(target, 'utf8'));
  }
}

/** The template must fill in every language, with every value known and with the optional ones unknown. */
function checkPlaceholders(file: string, fill: (values: Record<string, string>) => unknown): void {
  for (const values of [CHECK_VALUES, CHECK_VALUES_WITHOUT_OPTIONALS].flatMap((v) =>
    LOCALES.map((locale) => localizedValues(v, locale)),
  )) {
    try {
      fill(values);
    } catch (error) {
      if (error instanceof UnknownPlaceholderError || error instanceof MessageTemplateError)
        throw new MessageTemplateError(`Message template ${file}: ${error.message}`);
      throw error;
    }
  }
}
