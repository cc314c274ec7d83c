import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CarrierCall } from '../carriers/clients/types.ts';
import type { SendOutcome } from '../notifications/dispatcher.ts';
import type { WebhookOutcome } from '../shopify/intake/webhooks.ts';
import type { Channel, SendKind } from '../vocabulary.ts';

/** What became of one carrier exchange, in words an alert can name. */
export type CarrierCallOutcome =
  'ok' | 'not_found' | 'client_error' | 'rate_limited' | 'server_error' | 'unreachable' | 'unreadable';

/**
 * A carrier call's outcome from its HTTP status (null: no answer at all — network error or timeout);
 * a 2xx whose body could not be read is `unreadable`, not `ok` (tracking probe: cut-off JSON counted ok).
 */
export function carrierCallOutcome(status: number | null, unreadable = false): CarrierCallOutcome {
  if (status === null) return 'unreachable';
  if (unreadable) return 'unreadable';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status === 404) return 'not_found';
  if (status >= 400) return 'client_error';
  return 'ok';
}

/**
 * Every Prometheus instrument of one process, on that process's own `Registry` (never prom-client's
 * global one: each web or worker process, and each test app, counts only itself). The composition
 * root builds it and hands the few edges that count (HTTP, carrier calls, the dispatcher, the webhook
 * endpoint and processing) their part; scrape-time gauges are in ./scrape.ts.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'doorstep_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern (never the raw path: uuids are capabilities) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly carrierCalls = new Counter({
    name: 'doorstep_carrier_calls_total',
    help: 'Calls to carrier APIs by carrier, operation (oauth, track) and outcome.',
    labelNames: ['carrier', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly sends = new Counter({
    name: 'doorstep_sends_total',
    help: 'Message attempts by channel, kind and outcome (sent, retry scheduled, failed for good).',
    labelNames: ['channel', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly deliveredToSent = new Histogram({
    name: 'doorstep_delivered_to_sent_seconds',
    help: "Seconds from the package's delivery to the provider accepting the recipient's video, by channel.",
    labelNames: ['channel'] as const,
    buckets: [1, 5, 10, 30, 60, 300, 900, 3_600, 6 * 3_600, 86_400, 7 * 86_400],
    registers: [this.registry],
  });

  readonly webhookReceipts = new Counter({
    name: 'doorstep_webhook_receipts_total',
    help: 'Shopify webhooks by topic and outcome: stored, duplicate or rejected at the endpoint; processed, skipped, retry or failed in processing.',
    labelNames: ['topic', 'outcome'] as const,
    registers: [this.registry],
  });

  /**
   * Labelled by queue so that a process without workers (a web process) shows no sample: an
   * unlabelled gauge reads 0 until set, which would say "processing stepped aside" where none runs.
   */
  readonly webhookProcessingLevel = new Gauge({
    name: 'doorstep_webhook_processing_level',
    help: "Shopify webhooks this process's worker may process at once now: SHOPIFY_WEBHOOK_CONCURRENCY, lower (down to 0) while a webhook intake is queueing (docs/scaling.md).",
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  /**
   * Called by the process entry point once it knows its role: `process` (web, worker, all) tells
   * apart processes that Prometheus scrapes as separate targets; with `processMetrics`, prom-client's
   * CPU, memory, event-loop and GC metrics join in (they watch the whole Node process, so only a
   * real process turns them on — not each app a test starts).
   */
  setProcess(name: string, options: { processMetrics?: boolean } = {}): void {
    this.registry.setDefaultLabels({ process: name });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'doorstep_' });
  }

  carrierCall(call: CarrierCall): void {
    this.carrierCalls.inc({
      carrier: call.carrier,
      operation: call.operation,
      outcome: carrierCallOutcome(call.status, call.unreadable),
    });
  }

  send(outcome: { channel: Channel; kind: SendKind; outcome: SendOutcome }): void {
    this.sends.inc(outcome);
  }

  /** Only a recipient video of a delivered package has a lag; a video sent on a date has none. */
  recipientVideoSent(channel: Channel, deliveredAt: Date | null, sentAt: Date): void {
    if (!deliveredAt) return;
    this.deliveredToSent.observe({ channel }, Math.max(0, (sentAt.getTime() - deliveredAt.getTime()) / 1_000));
  }

  webhook(topic: string, outcome: WebhookOutcome): void {
    this.webhookReceipts.inc({ topic: webhookTopicLabel(topic), outcome });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * Shopify topics look like `orders/create`; anything else (a forged or future header) becomes
 * `other`, so a caller cannot mint unbounded label values.
 */
export function webhookTopicLabel(topic: string): string {
  return /^[a-z_]{1,40}\/[a-z_]{1,40}$/.test(topic) ? topic : 'other';
}
