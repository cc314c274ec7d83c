import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { summarizeErrorBody } from './error-body.ts';
import { CarrierUnexpectedResponseError } from './errors.ts';
import { parseFedexTrackResponse } from './fedex-response.ts';
import { createCarrierHttp, type CarrierResponse } from './http.ts';
import { createFedexTokenCache } from './fedex-oauth.ts';
import { sendWithToken } from './oauth.ts';
import { isRecord, trackingKey } from './results.ts';
import type { CarrierClientOptions, CarrierPushSubscriptions, PushJobOutcome, TrackingResult } from './types.ts';

/**
 * FedEx Advanced Integrated Visibility (AIV), tracking-number subscription: the Track Number
 * Association job that adds numbers to our webhook project, its job status and details, and the
 * `fdx-signature`-signed tracking events FedEx posts to the project's destination URL.
 *
 * FedEx documents the behaviour in prose (developer.fedex.com, "tracking-number-subscription" and
 * "shipment-visibility-webhook"), but the paths, field names and the event body sit behind a
 * logged-in project page. Every point marked (F1…F9) is an assumption listed with its source in
 * docs/carriers/push-usps-fedex.md ("FedEx AIV"). Pure except createFedexAivSubscriptions (HTTP).
 */

/** Assumption (F1): paths. FedEx names the endpoints "Track Number Association", "Job Status", "Job Details". */
export const FEDEX_AIV_ASSOCIATION_PATH = '/track/v1/webhook/trackingnumbers/association';
export const FEDEX_AIV_JOBS_PATH = '/track/v1/webhook/trackingnumbers/jobs';
/** Documented: "You can associate maximum of 1000 tracking numbers in a single request." */
export const FEDEX_AIV_MAX_BATCH_SIZE = 1000;
/**
 * Assumption (F6): FedEx documents no expiry of an association. We treat one as good for 30 days
 * and ADD the number again a day before (PushSubscriptions), which is harmless if it never lapses.
 */
export const FEDEX_AIV_LIFETIME_MS = 30 * 24 * 3_600_000;
/** Documented: the header carrying the Base64 HMAC-SHA256 of the payload, keyed with the security token. */
export const FEDEX_SIGNATURE_HEADER = 'fdx-signature';

/** Documented: 26–100 characters, at least one uppercase letter, one lowercase letter and one digit. */
export function fedexSecurityTokenProblem(token: string): string | null {
  if (token.length < 26 || token.length > 100) return 'must be 26 to 100 characters (FedEx requires it)';
  if (!/[A-Z]/.test(token) || !/[a-z]/.test(token) || !/[0-9]/.test(token))
    return 'must hold at least one uppercase letter, one lowercase letter and one digit (FedEx requires it)';
  return null;
}

/** A throw-away security token for the sandbox that meets FedEx's rules (40 characters). */
export function generatedFedexSecurityToken(): string {
  return `Fx9${randomBytes(28)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`.slice(0, 40);
}

/** Documented: Base64(HmacSHA256(key = security token, message = payload bytes)). */
export function fedexSignature(securityToken: string, rawBody: string): string {
  return createHmac('sha256', securityToken).update(rawBody).digest('base64');
}

export type FedexSignatureCheck = 'ok' | 'missing' | 'mismatch';

/**
 * Checks `fdx-signature` against the raw body in constant time. Base64 is what FedEx documents; a
 * hex digest is accepted too (F2: one FedEx page's pseudo-code says "hex encoding"). The payload
 * carries no signed timestamp, so a replay cannot be told from a resend: the event key stores it
 * once, and an older scan never overwrites a newer one (TrackingPoller).
 */
export function checkFedexSignature(
  securityToken: string,
  header: string | undefined,
  rawBody: string,
): FedexSignatureCheck {
  const signature = header?.trim() ?? '';
  if (signature === '') return 'missing';
  const expected = createHmac('sha256', securityToken).update(rawBody).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature)
    ? Buffer.from(signature, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(signature)
      ? Buffer.from(signature, 'base64')
      : null;
  const same = timingSafeEqual(given?.length === expected.length ? given : Buffer.alloc(expected.length), expected);
  return same && given !== null ? 'ok' : 'mismatch';
}

// --- The pushed event -------------------------------------------------------------------------------

const trackResult = z.looseObject({
  trackingNumberInfo: z.looseObject({ trackingNumber: z.string().nullish() }).nullish(),
  trackingNumber: z.string().nullish(),
});

/**
 * Assumption (F3): FedEx's "Detailed tracking response" (the default payload, "secured tracking data
 * with the full event history") is the Track API's `TrackResult`, in the Track API's envelope
 * (`output.completeTrackResults[]`) or bare (`trackResults[]`). Both are read.
 */
const nestedEnvelope = z.looseObject({
  output: z.looseObject({
    completeTrackResults: z
      .array(z.looseObject({ trackingNumber: z.string().nullish(), trackResults: z.array(trackResult).nullish() }))
      .min(1),
  }),
});
const flatEnvelope = z.looseObject({ trackResults: z.array(trackResult).min(1) });

/** A FedEx tracking number as its Track API gives it: 12, 15, 20, 22 or 34 digits, or a door tag (DT…). */
const FEDEX_NUMBER = /^(\d{10,34}|DT\d{12,20})$/;

export interface FedexPushEvent {
  trackingNumber: string;
  /** The one number's part of the post, in the Track API's envelope: what PushEvents stores. */
  body: unknown;
}

/**
 * One post → one event per tracking number. A post about one number is stored exactly as it came;
 * a post about several (FedEx does not say whether it batches) is cut into one Track API envelope
 * per number, each holding FedEx's own `TrackResult`s. Null when the body is not such a payload.
 */
export function fedexPushEvents(body: unknown): FedexPushEvent[] | null {
  const byNumber = new Map<string, { trackingNumber: string; results: unknown[] }>();
  const add = (number: string | null | undefined, result: unknown) => {
    const trackingNumber = number?.trim().toUpperCase() ?? '';
    if (!FEDEX_NUMBER.test(trackingNumber)) return;
    const entry = byNumber.get(trackingNumber) ?? { trackingNumber, results: [] };
    entry.results.push(result);
    byNumber.set(trackingNumber, entry);
  };
  const nested = nestedEnvelope.safeParse(body);
  if (nested.success) {
    for (const complete of nested.data.output.completeTrackResults)
      for (const result of complete.trackResults ?? [])
        add(complete.trackingNumber ?? result.trackingNumberInfo?.trackingNumber ?? result.trackingNumber, result);
  } else {
    const flat = flatEnvelope.safeParse(body);
    if (!flat.success) return null;
    for (const result of flat.data.trackResults)
      add(result.trackingNumberInfo?.trackingNumber ?? result.trackingNumber, result);
  }
  if (byNumber.size === 0) return null;
  const single = byNumber.size === 1 && nested.success && nested.data.output.completeTrackResults.length === 1;
  return [...byNumber.values()].map(({ trackingNumber, results }) => ({
    trackingNumber,
    body: single ? body : { output: { completeTrackResults: [{ trackingNumber, trackResults: results }] } },
  }));
}

/** A stored event as a tracking result: the Track API parser and fedex-status.ts's mapping, as a poll's answer. */
export function fedexPushResult(body: unknown): TrackingResult {
  const events = fedexPushEvents(body);
  const first = events?.[0];
  if (!first) throw new Error('not a FedEx AIV tracking event');
  const [result] = parseFedexTrackResponse([first.trackingNumber], first.body);
  return result!;
}

/**
 * The package, its newest scan's time and type and its latest status: a resent post is stored once.
 * FedEx may deliver events out of order ("look at the scan event time stamp"); each is its own key.
 */
export function fedexEventKey(event: FedexPushEvent): string {
  const result = fedexPushResult(event.body);
  const latest = isRecord(event.body) ? JSON.stringify(latestStatusOf(event.body)) : '';
  const identity = result.lastEventAt
    ? [trackingKey(event.trackingNumber), result.lastEventAt.toISOString(), result.status, latest]
    : [trackingKey(event.trackingNumber), JSON.stringify(event.body)];
  return createHash('sha256').update(identity.join('\n')).digest('base64url');
}

function latestStatusOf(body: Record<string, unknown>): unknown {
  const output = body['output'];
  const complete =
    isRecord(output) && Array.isArray(output['completeTrackResults']) ? output['completeTrackResults'] : [];
  const first: unknown = complete[0];
  const results = isRecord(first) && Array.isArray(first['trackResults']) ? first['trackResults'] : [];
  return results.map((result: unknown) => (isRecord(result) ? (result['latestStatusDetail'] ?? null) : null));
}

// --- The Track Number Association jobs --------------------------------------------------------------

/**
 * Documented job statuses (Job Status endpoint): SUBMITTED, ACCEPTED, QUEUED, IN PROGRESS → still
 * running; NOT ACCEPTED ("internal failure or system unavailability, user must retry") and FAILED
 * ("user must retry") → submit again; COMPLETED → the numbers were validated and processed, which
 * "does not mean all tracking numbers were added": the per-number outcome is in the Job Details report.
 * Assumption (F4): the spelling on the wire (we read them case- and separator-blind).
 */
export type FedexJobStatus = 'running' | 'failed' | 'completed' | 'unknown';

export function fedexJobStatus(value: string | null | undefined): FedexJobStatus {
  const status = (value ?? '').toUpperCase().replace(/[^A-Z]/g, '');
  if (['SUBMITTED', 'ACCEPTED', 'QUEUED', 'INPROGRESS', 'PROCESSING'].includes(status)) return 'running';
  if (['NOTACCEPTED', 'FAILED', 'FAILURE', 'ERROR'].includes(status)) return 'failed';
  if (status === 'COMPLETED' || status === 'COMPLETE') return 'completed';
  return 'unknown';
}

const text = z.string().nullish();
const job = z.looseObject({ jobId: text, jobID: text, jobStatus: text, status: text });
/** Assumption (F5): FedEx's usual envelope, `{transactionId, output}`, around the documented fields. */
const jobAnswer = z.looseObject({ output: job.extend({ jobs: z.array(job).nullish() }) });
const detailsAnswer = z.looseObject({
  output: z.looseObject({
    trackingNumberDetails: z
      .array(z.looseObject({ trackingNumber: z.string(), status: text, associationStatus: text }))
      .nullish(),
  }),
});

const jobIdOf = (value: z.infer<typeof job>): string | null => value.jobId ?? value.jobID ?? null;
const jobStatusOf = (value: z.infer<typeof job>): string | null => value.jobStatus ?? value.status ?? null;

/** Per number in a COMPLETED job's report (F5): SUCCESS (or ADDED/ASSOCIATED) is associated, anything else refused. */
function associated(detail: { status?: string | null; associationStatus?: string | null }): boolean {
  const status = (detail.associationStatus ?? detail.status ?? '').toUpperCase().replace(/[^A-Z]/g, '');
  return ['SUCCESS', 'SUCCESSFUL', 'ADDED', 'ASSOCIATED', 'COMPLETED'].includes(status);
}

export interface FedexAivOptions extends CarrierClientOptions {
  /** The US 9-digit FedEx account of the AIV project (documented: required for the project's billing). */
  accountNumber: string;
  /** The AIV project's id, when FedEx's project page shows one to send (F7); omitted when unset. */
  projectId?: string | null;
}

export interface FedexAivSubscriptions extends CarrierPushSubscriptions {
  /** Documented "add or remove": a REMOVE job for numbers we no longer need pushes for; answers its job id. */
  unsubscribe(trackingNumbers: string[]): Promise<string>;
}

/**
 * The AIV tracking-number subscription client. OAuth as the Track client (`POST /oauth/token`, form
 * body): FedEx says the API is called with an OAuth token from the Authorization API. `subscribe`
 * submits an ADD job (≤ 1000 numbers) and answers its id; `jobOutcome` reads the job's status and,
 * once COMPLETED, its details report.
 */
export function createFedexAivSubscriptions(options: FedexAivOptions): FedexAivSubscriptions {
  const http = createCarrierHttp('fedex', options);
  const tokens = createFedexTokenCache(http, options);

  const get = (path: string) =>
    sendWithToken(http, tokens, undefined, (token) => ({
      operation: 'subscribe',
      trackingNumbers: 0,
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'x-locale': 'en_US' },
    }));

  async function submit(action: 'ADD' | 'REMOVE', trackingNumbers: string[]): Promise<CarrierResponse> {
    return sendWithToken(http, tokens, undefined, (token) => ({
      operation: 'subscribe',
      trackingNumbers: trackingNumbers.length,
      method: 'POST',
      path: FEDEX_AIV_ASSOCIATION_PATH,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-locale': 'en_US',
      },
      // Assumption (F5): field names. FedEx documents the inputs "Action" (e.g. ADD) and "Tracking number Details".
      body: JSON.stringify({
        action,
        accountNumber: { value: options.accountNumber },
        ...(options.projectId ? { projectId: options.projectId } : {}),
        trackingNumberDetails: trackingNumbers.map((trackingNumber) => ({ trackingNumber: trackingNumber.trim() })),
      }),
    }));
  }

  function submittedJob(response: CarrierResponse, what: string): string {
    const parsed = jobAnswer.safeParse(response.body);
    const id = parsed.success ? jobIdOf(parsed.data.output) : null;
    if ((response.status === 200 || response.status === 201 || response.status === 202) && id) return id;
    throw new CarrierUnexpectedResponseError(
      'fedex',
      `FedEx ${what} answered ${response.status}: ${summarizeErrorBody(response.body) ?? 'no job id'}`,
      { status: response.status },
    );
  }

  return {
    maxBatchSize: FEDEX_AIV_MAX_BATCH_SIZE,
    lifetimeMs: FEDEX_AIV_LIFETIME_MS,
    async subscribe(trackingNumbers) {
      const response = await submit('ADD', trackingNumbers);
      // A request FedEx refuses as a whole (bad numbers, over 1000): none is associated; offered again later.
      if (response.status === 400 || response.status === 422) return { subscribed: [], refused: [...trackingNumbers] };
      return { subscribed: [], refused: [], job: submittedJob(response, 'Track Number Association') };
    },
    async unsubscribe(trackingNumbers) {
      return submittedJob(await submit('REMOVE', trackingNumbers), 'Track Number Association (REMOVE)');
    },
    async jobOutcome(jobId): Promise<PushJobOutcome> {
      const id = encodeURIComponent(jobId);
      const status = await get(`${FEDEX_AIV_JOBS_PATH}/${id}/status`);
      // A job FedEx no longer knows cannot finish: submit the numbers again.
      if (status.status === 404) return { state: 'failed', reason: 'FedEx does not know the job' };
      const parsed = jobAnswer.safeParse(status.body);
      if (status.status !== 200 || !parsed.success)
        throw new CarrierUnexpectedResponseError(
          'fedex',
          `FedEx job status answered ${status.status}: ${summarizeErrorBody(status.body) ?? 'no detail'}`,
          { status: status.status },
        );
      const output = parsed.data.output;
      const entry = (output.jobs ?? []).find((candidate) => jobIdOf(candidate) === jobId) ?? output;
      const state = fedexJobStatus(jobStatusOf(entry));
      if (state === 'failed') return { state: 'failed', reason: `job ${jobStatusOf(entry) ?? 'failed'}` };
      if (state !== 'completed') return { state: 'pending' };

      const details = await get(`${FEDEX_AIV_JOBS_PATH}/${id}`);
      const report = detailsAnswer.safeParse(details.body);
      if (details.status !== 200 || !report.success)
        throw new CarrierUnexpectedResponseError(
          'fedex',
          `FedEx job details answered ${details.status}: ${summarizeErrorBody(details.body) ?? 'no detail'}`,
          { status: details.status },
        );
      const added = new Set(
        (report.data.output.trackingNumberDetails ?? [])
          .filter(associated)
          .map((detail) => trackingKey(detail.trackingNumber)),
      );
      // Numbers the report does not mention count as refused: never assume an association FedEx did not confirm.
      const numbers = (report.data.output.trackingNumberDetails ?? []).map((detail) => detail.trackingNumber);
      return {
        state: 'done',
        subscribed: numbers.filter((n) => added.has(trackingKey(n))),
        refused: numbers.filter((n) => !added.has(trackingKey(n))),
      };
    },
  };
}
