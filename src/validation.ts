import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { ValidationError, type FieldErrors } from './errors.ts';

/** Parses a body or throws a ValidationError naming each offending field. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  what: string,
  options: Pick<FieldErrorOptions, 'refusedKeys'> = {},
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ValidationError(`The ${what} is not valid.`, fieldErrors(result.error, { ...options, input: body }));
}

/**
 * Parses a list's query parameters or throws a ValidationError naming each offending one. A parameter
 * given more than once (`limit=1&limit=2`: Node's parser makes it an array) is said to be so, rather
 * than read as a value of the wrong kind ("must be a number", shipment probe).
 */
export function parseListQuery<S extends z.ZodObject>(
  schema: S,
  query: Readonly<Record<string, string | string[] | undefined>>,
): z.output<S> {
  const result = schema.safeParse(query);
  const repeated = Object.entries(query).filter(
    (entry): entry is [string, string[]] => Array.isArray(entry[1]) && Object.hasOwn(schema.shape, entry[0]),
  );
  if (result.success && repeated.length === 0) return result.data;
  const fields = result.success
    ? {}
    : fieldErrors(result.error, { unknownKey: 'is not a query parameter of this list' });
  for (const [key, values] of repeated) fields[key] = `was given ${values.length} times: give it once`;
  throw new ValidationError('The query parameters are not valid.', fields);
}

export interface FieldErrorOptions {
  /** What was parsed: a field absent from it is "is required" rather than its type's message. */
  input?: unknown;
  /** The message for a key the schema does not know (a body's fields by default). */
  unknownKey?: string;
  /**
   * Keys the schema leaves out on purpose though a client may well send them (a field of another
   * request), each with what to do instead: said rather than `unknownKey`'s message.
   */
  refusedKeys?: Readonly<Record<string, string>>;
}

/**
 * One message per field, the first issue of each. Collected in a Map: keys come from the client, and a
 * field called `constructor` or `__proto__` must be named like any other (on a plain object `??=` found
 * Object.prototype's and the 422 named no field).
 */
export function fieldErrors(error: z.ZodError, options: FieldErrorOptions = {}): FieldErrors {
  const fields = new Map<string, string>();
  const first = (key: string, message: string): void => {
    if (!fields.has(key)) fields.set(key, message);
  };
  let unknown = 0;
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        // A body of 50,000 unknown keys answered a 2 MB error naming each: the first few say enough.
        if (++unknown > MAX_UNKNOWN_KEYS_NAMED) continue;
        const refused =
          options.refusedKeys && Object.hasOwn(options.refusedKeys, key) ? options.refusedKeys[key] : undefined;
        first(key, refused ?? options.unknownKey ?? 'is not a field that can be set');
      }
      continue;
    }
    // An empty key (a record's "") names its record, not "record." (billing probe).
    const named = issue.path.map(String).filter((segment) => segment !== '');
    const key = named.length > 0 ? named.join('.') : '_';
    const missing =
      options.input !== undefined &&
      issue.code === 'invalid_type' &&
      issue.path.length > 0 &&
      valueAt(options.input, issue.path) === undefined;
    first(key, missing ? 'is required' : issue.message);
  }
  if (unknown > MAX_UNKNOWN_KEYS_NAMED) first('_', `and ${unknown - MAX_UNKNOWN_KEYS_NAMED} more unknown fields`);
  return Object.fromEntries(fields);
}

const MAX_UNKNOWN_KEYS_NAMED = 20;

/** The value at `path` in a parsed JSON input, own properties only (undefined when absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a capability in a URL (an order's uuid, a thank-you key) can be one at all: anything else
 * is "not found" before a `uuid` column would refuse it as malformed input.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** An environment setting: unset, empty or blank all mean "not configured" (undefined); else trimmed. */
export const optionalSetting = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

const asciiEmail = z.email();

/**
 * An address whose domain is internationalised (`anna@bücher.de`) is checked as its ASCII form
 * (`anna@xn--bcher-kva.de`, what DNS and SMTP see: nodemailer sends it so), and kept as typed. The
 * part before the @ must be ASCII: few mail servers take anything else (SMTPUTF8).
 */
function isEmailAddress(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const domain = value.slice(at + 1);
  const ascii = /^[\x21-\x7e]*$/.test(domain) ? domain : domainToASCII(domain);
  return ascii !== '' && asciiEmail.safeParse(`${value.slice(0, at)}@${ascii}`).success;
}

/** An e-mail address as every boundary takes one (orders, an account's contact address). */
export const emailAddress = z
  .string({ error: 'must be an e-mail address' })
  .trim()
  .max(254, 'must be at most 254 characters')
  .refine(isEmailAddress, { error: 'must be a valid e-mail address' })
  .meta({ format: 'email', examples: ['ann@example.com'] });
