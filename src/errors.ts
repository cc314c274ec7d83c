/**
 * The named errors of the domain. Each maps to one HTTP status in http/error-handler.ts and to
 * retry/no-retry in the job runner; nothing else decides how an error is presented.
 */
export type FieldErrors = Record<string, string>;

export abstract class DomainError extends Error {
  abstract readonly type: string;
}

export class ValidationError extends DomainError {
  override name = 'ValidationError';
  readonly type = 'validation_error';
  constructor(
    message: string,
    readonly fields: FieldErrors = {},
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  readonly type: string = 'not_found';
}

/** It existed and was deleted: a not-found that can say so (410), e.g. an idempotent replay of its creation. */
export class GoneError extends NotFoundError {
  override name = 'GoneError';
  override readonly type = 'gone';
}

export class ConflictError extends DomainError {
  override name = 'ConflictError';
  readonly type = 'conflict';
}

/** A dependency (database, Redis, a carrier) is down; the request may succeed later. */
export class ServiceUnavailableError extends DomainError {
  override name = 'ServiceUnavailableError';
  readonly type = 'service_unavailable';
}
