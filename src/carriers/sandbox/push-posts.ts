import type { CarrierCode } from '../carrier-code.ts';

/** One webhook post the sandbox made, for tests and the push bench. */
export interface PushDelivery {
  carrier: CarrierCode;
  trackingNumber: string;
  /** The scripted event's time. */
  eventAt: Date;
  sentAt: Date;
  /** The subscriber's answer; null when it could not be reached. */
  status: number | null;
}

/** A failed post is tried again after these delays, then given up, as the carriers retry. */
const RETRY_DELAYS_MS = [500, 2_000, 5_000];

/**
 * Posts one pushed event the way every fake carrier does (UPS Track Alert, USPS Subscriptions-
 * Tracking, FedEx AIV differ only in `send`: URL, headers, signature): each attempt recorded in
 * `deliveries` and reported to `onPost`, a failed one (no answer, or not 2xx) tried again a few times.
 */
export async function postWithRetries(options: {
  carrier: CarrierCode;
  trackingNumber: string;
  eventAt: Date;
  now: () => Date;
  deliveries: PushDelivery[];
  onPost: (ok: boolean) => void;
  send: () => Promise<Response>;
}): Promise<void> {
  const { carrier, trackingNumber, eventAt } = options;
  for (let attempt = 0; ; attempt++) {
    let status: number | null;
    try {
      const response = await options.send();
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = null;
    }
    const ok = status !== null && status >= 200 && status < 300;
    options.deliveries.push({ carrier, trackingNumber, eventAt, sentAt: options.now(), status });
    options.onPost(ok);
    const delay = RETRY_DELAYS_MS[attempt];
    if (ok || delay === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
