import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { parseBasicAuth } from '../accounts/credentials.ts';
import type { OperatorCredentials } from '../config.ts';
import { HttpError } from '../http/errors.ts';

const challenge = { 'WWW-Authenticate': 'Basic realm="Doorstep operators", charset="UTF-8"' };

/**
 * Guards the operators' endpoints (/metrics, /admin/queues) with HTTP Basic credentials from
 * config. Compared in constant time over fixed-length digests, so neither the password's content
 * nor its length leaks through timing. Without configured credentials the endpoints answer 503:
 * they exist, but nobody can be let in.
 */
export function operatorAuth(credentials: OperatorCredentials | null) {
  const expected = credentials ? digest(`${credentials.username}:${credentials.password}`) : null;
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!expected) {
      throw new HttpError(
        503,
        'operator_credentials_not_configured',
        'Operator credentials are not configured: set OPERATOR_PASSWORD (docs/operations.md).',
      );
    }
    const given = parseBasicAuth(ctx.get('Authorization') || undefined);
    if (!given || !timingSafeEqual(digest(`${given.user}:${given.password}`), expected)) {
      throw new HttpError(401, 'unauthorized', 'Operator credentials are required.', challenge);
    }
    await next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
