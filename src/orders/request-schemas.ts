import { z } from 'zod';
import { CARRIER_CODES, type CarrierCode } from '../carriers/carrier-code.ts';
import {
  normalizeTrackingNumber,
  STORABLE_TRACKING_NUMBER,
  STORABLE_TRACKING_NUMBER_RULE,
} from '../carriers/tracking-number.ts';
import { ORDER_STATUSES, SEND_METHODS, SEND_TRIGGERS } from '../vocabulary.ts';
import { readPhoneNumber } from '../phone-number.ts';
import { emailAddress } from '../validation.ts';

/**
 * What a client may send, per spec §4 and docs/design.md §1. Every field has a message a person can act
 * on; unknown fields are rejected (a typo must not be silently ignored on a once-a-year gift).
 */
export const MAX_PRICE_CENTS = 100_000_000;

/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. A name or title is
 * one line: a CR/LF in it would forge log lines, split an SMS or an e-mail header, so it is refused
 * rather than silently changed (the client sees exactly what we store).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
const ONE_LINE = 'must be one line of text, without control characters or line breaks';

/** The longest text each free-text field takes (the Shopify mapping shortens a shopper's text to these). */
export const TEXT_LIMITS = { name: 200, recipient_name: 200, video_title: 200 } as const;

/**
 * Characters that show nothing: a name or title made only of them (a zero-width space, a word joiner, a
 * byte-order mark, a soft hyphen) is as empty as "" — the e-mail read “” (API probe).
 */
const INVISIBLE = /^[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*$/;

const text = (label: string, max: number) =>
  z
    .string({ error: `must be a string` })
    .trim()
    .min(1, `${label} must not be empty`)
    .refine((value) => !INVISIBLE.test(value), `${label} must not be empty`)
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARACTERS.test(value), ONE_LINE);

/**
 * The instants PostgreSQL and the contract's `YYYY-MM-DDTHH:MM:SSZ` can both carry, with room for
 * any real gift: a year outside 2000–9999 is a typo, and year 0 would reach the database as an error.
 */
const EARLIEST = new Date('2000-01-01T00:00:00Z');
const LATEST = new Date('9999-12-31T23:59:59Z');

/** A phone number in international form, stored as E.164 (`+14155550123`): src/phone-number.ts. */
const phone = z
  .string({ error: 'must be a phone number in international (E.164) form, e.g. +14155550123' })
  .transform((typed, context) => {
    const reading = readPhoneNumber(typed);
    if (reading.ok) return reading.e164;
    context.addIssue({ code: 'custom', message: reading.problem });
    return z.NEVER;
  })
  .meta({
    description:
      'International form, as people write it ("+44 (0)7700 900123"); stored as E.164 (+447700900123). A number too long or too short for its country is refused.',
    examples: ['+14155550123'],
  });

/** ISO 8601 with `Z` or an offset; stored as an instant and returned as `YYYY-MM-DDTHH:MM:SSZ`. */
const timestamp = z
  .string({ error: 'must be a timestamp like 2026-12-24T09:00:00Z' })
  .pipe(z.iso.datetime({ offset: true, error: 'must be a timestamp like 2026-12-24T09:00:00Z' }))
  .transform((value) => new Date(value))
  .refine(
    (date) => date >= EARLIEST && date <= LATEST,
    'must be a timestamp between 2000-01-01T00:00:00Z and 9999-12-31T23:59:59Z',
  )
  .meta({
    description: 'ISO 8601 with Z or an offset; answered as YYYY-MM-DDTHH:MM:SSZ.',
    format: 'date-time',
    examples: ['2026-12-24T09:00:00Z'],
  });

const carrier = z
  .string({ error: `must be one of ${CARRIER_CODES.join(', ')}` })
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.enum(CARRIER_CODES, { error: `must be one of ${CARRIER_CODES.join(', ')}` }))
  .transform((value): CarrierCode => value)
  .meta({ description: `One of ${CARRIER_CODES.join(', ')}, in any case.`, examples: ['ups'] });

/** Spaces and dashes are stripped and letters upper-cased: carriers print numbers in groups, in any case. */
const trackingNumber = z
  .string({ error: 'must be a string' })
  .transform(normalizeTrackingNumber)
  .pipe(z.string().regex(STORABLE_TRACKING_NUMBER, `must be ${STORABLE_TRACKING_NUMBER_RULE}`))
  .meta({
    description:
      'Spaces and dashes are removed and letters upper-cased; a number that does not validate is stored with a warning.',
    examples: ['1Z5R89390357567127'],
  });

const price = z
  .number({ error: `must be an integer number of cents from 0 to ${MAX_PRICE_CENTS}, or null` })
  .int(`must be an integer number of cents from 0 to ${MAX_PRICE_CENTS}, or null`)
  .min(0, `must be an integer number of cents from 0 to ${MAX_PRICE_CENTS}, or null`)
  .max(MAX_PRICE_CENTS, `must be an integer number of cents from 0 to ${MAX_PRICE_CENTS}, or null`)
  .meta({ description: 'Integer cents.', examples: [550] });

const detailFields = {
  name: text('name', TEXT_LIMITS.name),
  email: emailAddress,
  recipient_name: text('recipient_name', TEXT_LIMITS.recipient_name),
  recipient_email: emailAddress.nullable(),
  recipient_phone: phone.nullable(),
  /**
   * The sender's mobile number (issue 14): the "not watched yet" note goes by SMS when it is known.
   * Accepted, stored and erased like the other personal fields; not part of the order's JSON, which
   * is the spec's 26 fields (docs/api.md).
   */
  sender_phone: phone
    .nullable()
    .meta({ description: "The sender's mobile number (E.164), for the not-watched note by SMS. Not returned." }),
  send_method: z.enum(SEND_METHODS, { error: `must be one of ${SEND_METHODS.join(', ')}` }),
  send_trigger: z.enum(SEND_TRIGGERS, { error: `must be one of ${SEND_TRIGGERS.join(', ')}` }),
  send_on: timestamp.nullable(),
  // Shown in quotes on the watch page and in the e-mail: blank, it would read “” (API probe finding).
  video_title: text('video_title', TEXT_LIMITS.video_title),
  price: price.nullable(),
  carrier: carrier.nullable(),
  tracking_number: trackingNumber.nullable(),
};

const deliveredField = z
  .union([z.literal(1), z.literal(true)], {
    error: 'only 1 is accepted: it marks the order delivered, and delivery cannot be undone',
  })
  .meta({ description: 'Marks the order delivered (Custom Shipment Tracking); delivery cannot be undone.' });

export const orderUpdateSchema = z.strictObject({
  ...partial(detailFields),
  delivered: deliveredField.optional(),
});

export const orderCreateSchema = z.strictObject({
  ...partial(detailFields),
  name: detailFields.name,
  email: detailFields.email,
  recipient_name: detailFields.recipient_name,
});

export type OrderUpdate = z.output<typeof orderUpdateSchema>;

/**
 * Update fields a create refuses, and what to do instead. `delivered` is the Custom Shipment Tracking
 * signal, an update of an existing order (spec §2; docs/api.md "Create").
 */
export const CREATE_REFUSED_FIELDS: Readonly<Record<string, string>> = {
  delivered: 'cannot be set when creating an order: create it first, then PUT {"delivered":1} to /v1/orders/{id}',
};

/** `GET /v1/orders` query: paging (newest first) and filters. */
export const orderListQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be a number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be from 1 to 100')
    .max(100, 'must be from 1 to 100')
    .default(20),
  cursor: z
    .string({ error: 'must be the next_cursor of a previous page' })
    .min(1, 'must be the next_cursor of a previous page')
    .optional(),
  status: z.enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(', ')}` }).optional(),
  delivered: z
    .enum(['0', '1'], { error: 'must be "0" or "1"' })
    .transform((v) => v === '1')
    .optional(),
});

/** The `Idempotency-Key` header of `POST /v1/orders` (docs/api.md). */
export const idempotencyKeySchema = z.string().regex(/^[\x21-\x7E]{1,255}$/);

/** What the sender gives on the record page for an order that came without a recipient. */
export const recipientInputSchema = z
  .strictObject({
    recipient_name: detailFields.recipient_name,
    recipient_email: detailFields.recipient_email.optional(),
    recipient_phone: detailFields.recipient_phone.optional(),
  })
  .refine((value) => Boolean(value.recipient_email || value.recipient_phone), {
    message: 'give an e-mail address or a phone number (or both)',
    path: ['recipient_email'],
  });
export type RecipientInput = z.output<typeof recipientInputSchema>;
export type OrderCreate = z.output<typeof orderCreateSchema>;

function partial<T extends Record<string, z.ZodType>>(shape: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, schema.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };
}
