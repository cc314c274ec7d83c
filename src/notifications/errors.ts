/**
 * A provider refused the message for good (SMTP 5xx, an invalid phone number): retrying cannot
 * help, the recipient details must change. Anything else thrown by a channel counts as transient.
 */
export class PermanentSendError extends Error {
  override name = 'PermanentSendError';
}
