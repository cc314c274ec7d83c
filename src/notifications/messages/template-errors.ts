/**
 * A template names a `{{placeholder}}` (or a `{{#section}}`) that has no value: a bug in the
 * template or in `templateValues`, never something to send with the braces left in.
 */
export class UnknownPlaceholderError extends Error {
  override name = 'UnknownPlaceholderError';
}

/** A template that cannot be compiled or filled; the process refuses to start with it (one line). */
export class MessageTemplateError extends Error {
  override name = 'MessageTemplateError';
}
