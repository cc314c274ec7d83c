/**
 * Reasons other modules store are written for API clients ("PUT delivered: 1", field names).
 * Shown to a merchant in the admin, the API's wording becomes the admin's own.
 */
const REPLACEMENTS: ReadonlyArray<[RegExp, string]> = [
  [/\bmark (it|the order) delivered with PUT delivered: 1\b/gi, 'mark it delivered'],
  [/\bor a PUT with delivered: 1\b/gi, 'or by marking it delivered'],
  [/\(PUT delivered: 1\)/gi, ''],
  [/\bPUT delivered: 1\b/gi, 'marking it delivered'],
  [/\brecipient_email\b/g, 'recipient e-mail'],
  [/\brecipient_phone\b/g, 'recipient phone'],
  [/\brecipient_name\b/g, 'recipient name'],
  [/\bsend_on\b/g, 'send date'],
  [/\bsend_method\b/g, 'send method'],
  [/\bsend_trigger\b/g, 'send trigger'],
  [/\btracking_number\b/g, 'tracking number'],
  // A transient provider error after the last retry names our own network (ECONNREFUSED 10.0.0.5:587):
  // not the merchant's business, and not something they can act on.
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, 'the provider'],
];

export function merchantWords(text: string): string {
  let words = text;
  for (const [pattern, replacement] of REPLACEMENTS) words = words.replace(pattern, replacement);
  return words
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([.,;:])/g, '$1')
    .trim()
    .replace(/[.\s]+$/, '');
}
