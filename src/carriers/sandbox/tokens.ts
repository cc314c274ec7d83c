import { randomBytes } from 'node:crypto';
import type { CarrierCode } from '../carrier-code.ts';

export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/** Bearer tokens the fake OAuth endpoints issue; each is good for one carrier until it expires. */
export class TokenIssuer {
  readonly #tokens = new Map<string, { carrier: CarrierCode; expiresAt: number }>();

  constructor(
    private readonly now: () => Date,
    readonly ttlSeconds: number = DEFAULT_TOKEN_TTL_SECONDS,
  ) {}

  /**
   * Client credentials pass unless empty or containing "invalid", so a test can provoke an OAuth
   * rejection with an obviously named secret.
   */
  static acceptsCredentials(clientId: string | undefined, clientSecret: string | undefined): boolean {
    if (!clientId || !clientSecret) return false;
    return !`${clientId}\n${clientSecret}`.toLowerCase().includes('invalid');
  }

  issue(carrier: CarrierCode): { accessToken: string; expiresInSeconds: number; issuedAt: Date } {
    const issuedAt = this.now();
    const accessToken = `sandbox-${carrier}-${randomBytes(18).toString('base64url')}`;
    this.#tokens.set(accessToken, { carrier, expiresAt: issuedAt.getTime() + this.ttlSeconds * 1000 });
    return { accessToken, expiresInSeconds: this.ttlSeconds, issuedAt };
  }

  /** Checks an `Authorization: Bearer …` header value. */
  accepts(carrier: CarrierCode, authorization: string | undefined): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const token = match?.[1] ? this.#tokens.get(match[1]) : undefined;
    return token !== undefined && token.carrier === carrier && this.now().getTime() < token.expiresAt;
  }

  clear(): void {
    this.#tokens.clear();
  }
}
