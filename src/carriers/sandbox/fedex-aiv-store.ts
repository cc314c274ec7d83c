import { randomUUID } from 'node:crypto';
import { fedexSignature, FEDEX_AIV_LIFETIME_MS, FEDEX_SIGNATURE_HEADER } from '../clients/fedex-aiv.ts';
import { normalizeTrackingNumber, type PackageEvent } from './packages.ts';
import { postWithRetries, type PushDelivery } from './push-posts.ts';

/**
 * The fake FedEx Advanced Integrated Visibility's state: the webhook project (destination URL and
 * security token, entered on FedEx's portal, so registered out of band here), the Track Number
 * Association jobs, the numbers associated, and the signed posts. Kept apart from the routes
 * (fedex-aiv.ts) so SandboxPush can own it without an import cycle; the routes install the event
 * renderer (the Track API's `TrackResult` with the package's full history, assumption F3).
 */

type Render = (trackingNumber: string) => unknown;

export interface SandboxFedexJob {
  jobId: string;
  action: 'ADD' | 'REMOVE';
  trackingNumbers: string[];
  accountNumber: string | null;
  status: 'SUBMITTED' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  createdAt: Date;
  completedAt: Date | null;
  /** Per number once COMPLETED: associated (or removed), or why not. */
  results: { trackingNumber: string; status: 'SUCCESS' | 'FAILURE'; message: string }[];
  statusChecks: number;
  /** Set at submission from `failNextJobs`: the job ends FAILED. */
  fails: boolean;
}

/** FedEx tracking numbers the sandbox associates: 12, 15, 20, 22 or 34 digits. */
const ASSOCIABLE = /^(\d{12}|\d{15}|\d{20}|\d{22}|\d{34})$/;
export class SandboxFedexAiv {
  readonly #jobs = new Map<string, SandboxFedexJob>();
  readonly #associated = new Map<string, number>();
  readonly #inflight = new Set<Promise<void>>();
  #webhook: { url: string; securityToken: string } | null = null;

  /** Set by the routes (fedex-aiv.ts); without it nothing is posted. */
  render: Render | null = null;
  /** While true, jobs stay IN_PROGRESS however often they are asked about (tests of the pending state). */
  holdJobs = false;
  /** The next this-many jobs submitted end FAILED ("user must retry"). */
  failNextJobs = 0;
  /** Numbers FedEx refuses in the job report although they look like FedEx numbers. */
  readonly refuse = new Set<string>();

  constructor(
    private readonly now: () => Date,
    private readonly deliveries: PushDelivery[],
    private readonly onPost: (ok: boolean) => void,
  ) {}

  /** The portal's webhook project: where FedEx posts and the token it signs with. */
  register(webhook: { url: string; securityToken: string }): void {
    this.#webhook = webhook;
  }

  submit(action: 'ADD' | 'REMOVE', trackingNumbers: string[], accountNumber: string | null): SandboxFedexJob {
    const fails = this.failNextJobs > 0;
    if (fails) this.failNextJobs -= 1;
    const job: SandboxFedexJob = {
      jobId: randomUUID(),
      action,
      trackingNumbers: trackingNumbers.map(normalizeTrackingNumber),
      accountNumber,
      status: 'SUBMITTED',
      createdAt: this.now(),
      completedAt: null,
      results: [],
      statusChecks: 0,
      fails,
    };
    this.#jobs.set(job.jobId, job);
    return job;
  }

  /** The job as a status check finds it: processing happens when FedEx is asked, unless held. */
  check(jobId: string): SandboxFedexJob | undefined {
    const job = this.#jobs.get(jobId);
    if (!job) return undefined;
    job.statusChecks += 1;
    if (job.status === 'SUBMITTED' || job.status === 'IN_PROGRESS') {
      if (this.holdJobs) job.status = 'IN_PROGRESS';
      else if (job.fails) job.status = 'FAILED';
      else this.complete(job);
    }
    return job;
  }

  get(jobId: string): SandboxFedexJob | undefined {
    return this.#jobs.get(jobId);
  }

  /** Every job, for tests. */
  jobs(): SandboxFedexJob[] {
    return [...this.#jobs.values()];
  }

  isSubscribed(trackingNumber: string): boolean {
    return (this.#associated.get(normalizeTrackingNumber(trackingNumber)) ?? 0) > this.now().getTime();
  }

  /** A new scan on an associated number: the signed "Detailed tracking response" to the project's URL. */
  notify(trackingNumber: string, event: PackageEvent): void {
    const normalized = normalizeTrackingNumber(trackingNumber);
    const webhook = this.#webhook;
    if (!webhook || !this.render || !this.isSubscribed(normalized)) return;
    const raw = JSON.stringify(this.render(normalized));
    const sending = this.post(webhook, normalized, event.at, raw).finally(() => this.#inflight.delete(sending));
    this.#inflight.add(sending);
  }

  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  clear(): void {
    this.#jobs.clear();
    this.#associated.clear();
    this.refuse.clear();
    this.holdJobs = false;
    this.failNextJobs = 0;
  }

  private complete(job: SandboxFedexJob): void {
    const until = this.now().getTime() + FEDEX_AIV_LIFETIME_MS;
    job.results = job.trackingNumbers.map((trackingNumber) => {
      if (!ASSOCIABLE.test(trackingNumber) || this.refuse.has(trackingNumber))
        return { trackingNumber, status: 'FAILURE', message: 'Invalid tracking number.' };
      if (job.action === 'ADD') this.#associated.set(trackingNumber, until);
      else this.#associated.delete(trackingNumber);
      return { trackingNumber, status: 'SUCCESS', message: job.action === 'ADD' ? 'Associated.' : 'Removed.' };
    });
    job.status = 'COMPLETED';
    job.completedAt = this.now();
  }

  private post(
    webhook: { url: string; securityToken: string },
    trackingNumber: string,
    eventAt: Date,
    raw: string,
  ): Promise<void> {
    return postWithRetries({
      carrier: 'fedex',
      trackingNumber,
      eventAt,
      now: this.now,
      deliveries: this.deliveries,
      onPost: this.onPost,
      send: () =>
        fetch(webhook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [FEDEX_SIGNATURE_HEADER]: fedexSignature(webhook.securityToken, raw),
          },
          body: raw,
          signal: AbortSignal.timeout(10_000),
        }),
    });
  }
}
