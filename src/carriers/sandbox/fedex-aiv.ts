import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { z } from 'zod';
import { FEDEX_AIV_ASSOCIATION_PATH, FEDEX_AIV_JOBS_PATH, FEDEX_AIV_MAX_BATCH_SIZE } from '../clients/fedex-aiv.ts';
import { BodyError, readJson } from './body.ts';
import type { SandboxFedexJob } from './fedex-aiv-store.ts';
import { fedexNotFoundResult, fedexTrackResult } from './fedex.ts';
import type { SandboxState } from './state.ts';

/**
 * Fake FedEx Advanced Integrated Visibility, tracking-number subscription, under /sandbox/fedex:
 * Track Number Association (ADD or REMOVE, at most 1000 numbers, answered with a job id), Job Status
 * and Job Details; then, for every event scripted on an associated number, the "Detailed tracking
 * response" signed with `fdx-signature` to the registered destination URL (fedex-aiv-store.ts). The
 * paths and field names are the assumptions of docs/carriers/push-usps-fedex.md ("FedEx AIV").
 */

const fedexErrors = (code: string, message: string) => ({ transactionId: randomUUID(), errors: [{ code, message }] });

const associationSchema = z.object({
  action: z.enum(['ADD', 'REMOVE']),
  accountNumber: z.object({ value: z.string().regex(/^\d{9}$/) }).optional(),
  projectId: z.string().optional(),
  trackingNumberDetails: z
    .array(z.object({ trackingNumber: z.string().min(1).max(40) }))
    .min(1)
    .max(FEDEX_AIV_MAX_BATCH_SIZE),
});

export function fedexAivRoutes(state: SandboxState): Router {
  const router = new Router({ prefix: '/sandbox/fedex' });
  const aiv = state.push.fedex;
  aiv.render = (trackingNumber) => {
    const snapshot = state.packages.snapshot('fedex', trackingNumber);
    return {
      transactionId: randomUUID(),
      output: {
        completeTrackResults: [
          {
            trackingNumber,
            trackResults: [
              snapshot
                ? fedexTrackResult(trackingNumber, snapshot, state.utcOffsetMinutes)
                : fedexNotFoundResult(trackingNumber),
            ],
          },
        ],
      },
    };
  };

  // Runs only for this router's own routes (@koa/router): the Track API keeps its own gate.
  router.use(async (ctx, next) => {
    if (!state.tokens.accepts('fedex', ctx.get('authorization'))) {
      ctx.status = 401;
      ctx.body = fedexErrors('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.');
      return;
    }
    await next();
  });

  router.post(FEDEX_AIV_ASSOCIATION_PATH, async (ctx) => {
    state.carriers.fedex.stats.subscribeCalls += 1;
    let body: unknown;
    try {
      body = await readJson(ctx);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      body = null;
    }
    const request = associationSchema.safeParse(body);
    if (!request.success) {
      ctx.status = 400;
      ctx.body = fedexErrors(
        'INVALID.INPUT.EXCEPTION',
        `Invalid field value in the input: ${request.error.issues[0]?.path.join('.') || 'body'}`,
      );
      return;
    }
    const job = aiv.submit(
      request.data.action,
      request.data.trackingNumberDetails.map((detail) => detail.trackingNumber),
      request.data.accountNumber?.value ?? null,
    );
    ctx.body = { transactionId: randomUUID(), output: jobJson(job) };
  });

  router.get(`${FEDEX_AIV_JOBS_PATH}/status`, (ctx) => {
    // A job's status and report are carrier calls too: the bench counts them with the association.
    state.carriers.fedex.stats.subscribeCalls += 1;
    ctx.body = { transactionId: randomUUID(), output: { jobs: aiv.jobs().map(jobJson) } };
  });

  router.get(`${FEDEX_AIV_JOBS_PATH}/:jobId/status`, (ctx) => {
    // A job's status and report are carrier calls too: the bench counts them with the association.
    state.carriers.fedex.stats.subscribeCalls += 1;
    const job = aiv.check(ctx.params['jobId'] ?? '');
    if (!job) {
      ctx.status = 404;
      ctx.body = fedexErrors('JOB.NOT.FOUND', 'The requested job ID was not found.');
      return;
    }
    ctx.body = { transactionId: randomUUID(), output: { jobs: [jobJson(job)] } };
  });

  router.get(`${FEDEX_AIV_JOBS_PATH}/:jobId`, (ctx) => {
    // A job's status and report are carrier calls too: the bench counts them with the association.
    state.carriers.fedex.stats.subscribeCalls += 1;
    const job = aiv.get(ctx.params['jobId'] ?? '');
    if (!job) {
      ctx.status = 404;
      ctx.body = fedexErrors('JOB.NOT.FOUND', 'The requested job ID was not found.');
      return;
    }
    if (job.status !== 'COMPLETED') {
      ctx.status = 400;
      ctx.body = fedexErrors('JOB.NOT.COMPLETED', 'The job report can be downloaded for COMPLETED jobs only.');
      return;
    }
    ctx.body = { transactionId: randomUUID(), output: { ...jobJson(job), trackingNumberDetails: job.results } };
  });

  return router;
}

function jobJson(job: SandboxFedexJob) {
  return {
    jobId: job.jobId,
    jobStatus: job.status,
    jobCreatedTimestamp: job.createdAt.toISOString(),
    jobCompletedTimestamp: job.completedAt?.toISOString() ?? null,
  };
}
