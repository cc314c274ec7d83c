/** Errors that exist only at the HTTP edge (the domain never raises them). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const unauthorized = (
  message = 'Missing or invalid credentials. Use HTTP Basic auth with your app id and API key.',
) => new HttpError(401, 'unauthorized', message, { 'WWW-Authenticate': 'Basic realm="Doorstep", charset="UTF-8"' });
