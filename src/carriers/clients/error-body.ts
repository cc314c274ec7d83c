import { isRecord } from './results.ts';

/**
 * Reading carrier error bodies, for exception messages and not-found descriptions. The three
 * carriers use different shapes:
 * - UPS `{"response":{"errors":[{"code","message"}]}}` (ups-tracking / ups-oauth openapi `Response`)
 * - FedEx `{"errors":[{"code","message"}]}` (fedex-track.openapi.json `ErrorResponseVO`)
 * - USPS `{"error":{"code","message"}}` (usps-tracking-v3 `ErrorMessage`), or the OAuth form
 *   `{"error":"invalid_client","error_description":"…"}`.
 */
interface ErrorEntry {
  code: string | null;
  message: string | null;
}

/** "code message; code message", or null when the body says nothing usable. */
export function summarizeErrorBody(body: unknown): string | null {
  if (typeof body === 'string') return body.trim().slice(0, 200) || null;
  const parts = errorEntries(body)
    .map(({ code, message }) => [code, message].filter(Boolean).join(' '))
    .filter((part) => part !== '');
  return parts.length > 0 ? parts.join('; ') : null;
}

/** The carrier's first human-readable error message. */
export function errorMessageOf(body: unknown): string | null {
  return errorEntries(body).find((entry) => entry.message)?.message ?? null;
}

function errorEntries(body: unknown): ErrorEntry[] {
  if (!isRecord(body)) return [];
  const response = body['response'];
  if (isRecord(response)) return listEntries(response['errors']);
  const listed = listEntries(body['errors']);
  if (listed.length > 0) return listed;
  const error = body['error'];
  if (typeof error === 'string') return [{ code: error, message: stringOrNull(body['error_description']) }];
  if (isRecord(error)) return [entry(error)];
  return [];
}

function listEntries(errors: unknown): ErrorEntry[] {
  return Array.isArray(errors) ? errors.filter(isRecord).map(entry) : [];
}

function entry(error: Record<string, unknown>): ErrorEntry {
  return { code: stringOrNull(error['code']), message: stringOrNull(error['message']) };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
