/** The misbehaviour a test or demo asks of one fake carrier's tracking endpoint. */
export interface FaultSettings {
  /** The next n tracking calls answer 429 with Retry-After. */
  rateLimit: number;
  /** The next n tracking calls answer a 5xx without Retry-After. */
  serverError: number;
  /** The next n tracking calls answer 401, whatever the token (credentials revoked at the carrier). */
  unauthorized: number;
  /** Every tracking call waits this long before answering. */
  delayMs: number;
  retryAfterSeconds: number;
}

export type Fault =
  { kind: 'rate_limit'; retryAfterSeconds: number } | { kind: 'server_error' } | { kind: 'unauthorized' } | null;

const NO_FAULTS: FaultSettings = { rateLimit: 0, serverError: 0, unauthorized: 0, delayMs: 0, retryAfterSeconds: 1 };

export class CarrierFaults {
  #settings: FaultSettings = { ...NO_FAULTS };

  get settings(): Readonly<FaultSettings> {
    return this.#settings;
  }

  /** Fields given replace the current ones; the others stay. */
  update(changes: Partial<FaultSettings>): void {
    this.#settings = { ...this.#settings, ...changes };
  }

  clear(): void {
    this.#settings = { ...NO_FAULTS };
  }

  /** The fault for the tracking call being answered now, consuming one; rate limits come first. */
  take(): Fault {
    if (this.#settings.rateLimit > 0) {
      this.#settings.rateLimit -= 1;
      return { kind: 'rate_limit', retryAfterSeconds: this.#settings.retryAfterSeconds };
    }
    if (this.#settings.serverError > 0) {
      this.#settings.serverError -= 1;
      return { kind: 'server_error' };
    }
    if (this.#settings.unauthorized > 0) {
      this.#settings.unauthorized -= 1;
      return { kind: 'unauthorized' };
    }
    return null;
  }
}
