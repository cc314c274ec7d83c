import { describe, expect, it } from 'vitest';
import { CarrierAuthError, CarrierUnexpectedResponseError } from '../../../src/carriers/clients/errors.ts';
import { createTokenCache, readTokenResponse, type IssuedToken } from '../../../src/carriers/clients/oauth.ts';

describe('token cache', () => {
  const setup = (expiresInSeconds = 3600) => {
    let nowMs = Date.parse('2025-06-02T12:00:00Z');
    let issued = 0;
    let release: (() => void) | null = null;
    let gate: Promise<void> = Promise.resolve();
    const cache = createTokenCache({
      now: () => new Date(nowMs),
      fetchToken: async (): Promise<IssuedToken> => {
        issued += 1;
        const number = issued;
        await gate;
        return { accessToken: `token-${number}`, expiresInSeconds };
      },
    });
    return {
      cache,
      issued: () => issued,
      advance: (seconds: number) => (nowMs += seconds * 1000),
      hold: () => {
        gate = new Promise<void>((resolve) => (release = resolve));
      },
      release: () => release?.(),
    };
  };

  it('reuses a token until shortly before it expires', async () => {
    const { cache, issued, advance } = setup(3600);
    expect(await cache.get()).toBe('token-1');
    advance(3600 - 61);
    expect(await cache.get()).toBe('token-1');
    advance(2); // inside the 60 s margin
    expect(await cache.get()).toBe('token-2');
    expect(issued()).toBe(2);
  });

  it('scales the margin down for short-lived tokens', async () => {
    const { cache, advance } = setup(30);
    await cache.get();
    advance(26); // margin is 3 s, not 60
    expect(await cache.get()).toBe('token-1');
    advance(2);
    expect(await cache.get()).toBe('token-2');
  });

  it('makes concurrent callers share one token request', async () => {
    const { cache, issued, hold, release } = setup();
    hold();
    const waiting = Promise.all([cache.get(), cache.get(), cache.get()]);
    release();
    expect(await waiting).toEqual(['token-1', 'token-1', 'token-1']);
    expect(issued()).toBe(1);
  });

  it('lets one waiter give up without failing the others', async () => {
    const { cache, hold, release } = setup();
    hold();
    const impatient = new AbortController();
    const first = cache.get(impatient.signal);
    const second = cache.get();
    impatient.abort(new Error('gave up'));
    release();
    await expect(first).rejects.toThrow('gave up');
    expect(await second).toBe('token-1');
  });

  it('forgets a rejected token, but not a newer one', async () => {
    const { cache } = setup();
    const old = await cache.get();
    cache.invalidate(old);
    const fresh = await cache.get();
    expect(fresh).toBe('token-2');
    cache.invalidate(old);
    expect(await cache.get()).toBe('token-2');
  });

  it('tries again after a failed token request', async () => {
    let attempts = 0;
    const cache = createTokenCache({
      now: () => new Date(),
      fetchToken: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('down');
        return { accessToken: 'token', expiresInSeconds: 60 };
      },
    });
    await expect(cache.get()).rejects.toThrow('down');
    expect(await cache.get()).toBe('token');
  });
});

describe('readTokenResponse', () => {
  const response = (status: number, body: unknown) => ({ status, headers: new Headers(), body });

  it('accepts expires_in as a number or, as UPS sends it, a string', () => {
    expect(
      readTokenResponse('ups', response(200, { access_token: 'a', expires_in: '14399', token_type: 'Bearer' })),
    ).toEqual({ accessToken: 'a', expiresInSeconds: 14399 });
    expect(readTokenResponse('fedex', response(200, { access_token: 'b', expires_in: 3599 }))).toEqual({
      accessToken: 'b',
      expiresInSeconds: 3599,
    });
  });

  it('keeps a token without expires_in (RFC 6749 only recommends it) for five minutes, rather than failing every call (tracking probe)', () => {
    expect(readTokenResponse('usps', response(200, { access_token: 'c', token_type: 'Bearer' }))).toEqual({
      accessToken: 'c',
      expiresInSeconds: 300,
    });
    expect(() => readTokenResponse('usps', response(200, { access_token: 'd', expires_in: -5 }))).toThrow(
      CarrierUnexpectedResponseError,
    );
  });

  it('reports rejected credentials as an auth error with the carrier message, never the secret', () => {
    const error = (() => {
      try {
        readTokenResponse(
          'ups',
          response(401, { response: { errors: [{ code: '10401', message: 'ClientId is Invalid' }] } }),
        );
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CarrierAuthError);
    expect((error as Error).message).toContain('10401 ClientId is Invalid');
  });

  it('rejects a 200 that carries no token', () => {
    expect(() => readTokenResponse('usps', response(200, { status: 'approved' }))).toThrow(
      CarrierUnexpectedResponseError,
    );
  });
});
