import type { CarrierCode } from '../carrier-code.ts';

import type { TrackingStatus } from '../../vocabulary.ts';

export interface TrackingResult {
  /** Exactly as the caller passed it to `track`. */
  trackingNumber: string;
  status: TrackingStatus;
  deliveredAt: Date | null;
  /** End of the carrier's delivery window, or the estimated date (end of that day) when no window is given. */
  estimatedDeliveryAt: Date | null;
  /**
   * Start of the carrier's delivery window, when it gives one: UPS `deliveryTime.startTime` (EDW, CDW,
   * IDW), FedEx `estimatedDeliveryTimeWindow.window.begins`, USPS `predictedDeliveryWindowStartTime`.
   * Optional so that fakes written against the smaller interface still fit; the clients always set it.
   */
  estimatedWindowStartAt?: Date | null;
  lastEventAt: Date | null;
  /** The carrier's own text for the latest status, untranslated. */
  description: string | null;
  /**
   * Where the package is going, when the carrier says (tracking learns the destination's time zone
   * from it). The Track API clients always set it; UPS Track Alert's pushed events carry none.
   */
  destination?: Destination | null;
}

/** The destination address parts the carriers give in tracking responses; never a street or a name. */
export interface Destination {
  /** ISO 3166-1 alpha-2 as the carrier sends it (`US`), or null when not given. */
  countryCode: string | null;
  /** Two-letter state or territory code (`NY`), or null. */
  state: string | null;
  /** ZIP or ZIP+4 (`10001`, `10001-1234`), or null. */
  postalCode: string | null;
}

export interface TrackOptions {
  signal?: AbortSignal;
}

export interface CarrierClient {
  readonly carrier: CarrierCode;
  /** Most numbers one carrier request may carry; `track` splits longer lists into several requests. */
  readonly maxBatchSize: number;
  /** One result per requested number, in the order requested. */
  track(trackingNumbers: string[], options?: TrackOptions): Promise<TrackingResult[]>;
  /** The carrier's push subscriptions, where it has a documented one (docs/tracking.md "Push"). */
  readonly push?: CarrierPushSubscriptions;
}

/** Subscribing packages to a carrier's push of tracking events. */
export interface CarrierPushSubscriptions {
  /** Most numbers one subscription request may carry (UPS Track Alert: 100). */
  readonly maxBatchSize: number;
  /** How long a subscription lasts before it must be renewed (UPS Track Alert: 14 days). */
  readonly lifetimeMs: number;
  /** One request for up to `maxBatchSize` numbers: which the carrier subscribed and which it refused. */
  subscribe(trackingNumbers: string[]): Promise<PushSubscribeAnswer>;
  /**
   * Where subscribing is an asynchronous job (FedEx AIV Track Number Association): what became of
   * the job `subscribe` answered. PushSubscriptions asks on each claim tick until it is done.
   */
  jobOutcome?(jobId: string): Promise<PushJobOutcome>;
}

export interface PushSubscribeAnswer {
  subscribed: string[];
  refused: string[];
  /**
   * The carrier took the numbers as an asynchronous job (FedEx AIV): none is subscribed or refused
   * yet (`subscribed` and `refused` are empty); `jobOutcome(job)` says later.
   */
  job?: string;
}

/** An asynchronous subscription job: still running, failed as a whole (submit again), or done per number. */
export type PushJobOutcome =
  | { state: 'pending' }
  | { state: 'failed'; reason: string }
  | { state: 'done'; subscribed: string[]; refused: string[] };

/** One HTTP exchange with a carrier, for logs and metrics. Never carries credentials or tokens. */
export interface CarrierCall {
  carrier: CarrierCode;
  operation: 'oauth' | 'track' | 'subscribe';
  /** HTTP status, or null when no response arrived (network error, timeout, cancellation). */
  status: number | null;
  durationMs: number;
  /** How many tracking numbers the request carried (0 for OAuth). */
  trackingNumbers: number;
  /** A 2xx whose body is not JSON (cut off, compressed without saying so): answered, but unusable. */
  unreadable?: boolean;
}

export interface CarrierClientOptions {
  /** Carrier origin, or the sandbox prefix, e.g. `https://onlinetools.ups.com` or `http://127.0.0.1:4010/sandbox/ups`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
  /** Per HTTP request, default 10 000 ms. */
  timeoutMs?: number;
  /** Clock for token expiry; tests move it forward. */
  now?: () => Date;
  onCall?: (call: CarrierCall) => void;
  /**
   * The carrier account's shared request budget (src/carriers/quota.ts). Every tracking request asks
   * it first and is not sent when it says no; the carrier's own 429 is reported back to it.
   * createCarrierClients always sets it; clients built without it (wire-format tests) are unlimited.
   */
  budget?: CarrierCallBudget;
}

/** One carrier's side of the shared quota, as a client sees it. */
export interface CarrierCallBudget {
  /** Spends one tracking call, or throws CarrierQuotaError: the call must not be made. */
  take(): Promise<void>;
  /** The carrier answered 429 (or 503 with Retry-After): no process calls it for `ms`. Never throws. */
  holdOff(ms: number): Promise<void>;
  /** Tracking calls left in the current window, for the operators' metrics; throws when Redis does not answer. */
  left?(): Promise<number>;
}
