import { z } from 'zod';
import { ValidationError, type FieldErrors } from './errors.ts';

/** Parses a body or throws a ValidationError naming each offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ValidationError(`The ${what} is not valid.`, fieldErrors(result.error));
}

export function fieldErrors(error: z.ZodError): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) fields[key] ??= 'is not a field that can be set';
      continue;
    }
    const key = issue.path.length > 0 ? issue.path.map(String).join('.') : '_';
    fields[key] ??= issue.message;
  }
  return fields;
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

/** An e-mail address as every boundary takes one (orders, an account's contact address). */
export const emailAddress = z
  .string({ error: 'must be an e-mail address' })
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ error: 'must be a valid e-mail address' }))
  .meta({ format: 'email', examples: ['ann@example.com'] });
