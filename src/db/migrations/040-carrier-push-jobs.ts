import type { Kysely } from 'kysely';

/**
 * Carrier push subscriptions that are asynchronous jobs (FedEx Advanced Integrated Visibility's
 * Track Number Association, docs/carriers/push-usps-fedex.md "FedEx"): the carrier answers a job id,
 * and only the job's outcome says which numbers were associated. `push_job_id` is the job a package
 * waits on (null = none); `push_job_at` when it was submitted, so a job that never finishes is given
 * up and submitted again. Polling covers the package meanwhile, as for any unsubscribed one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('trackings')
    .addColumn('push_job_id', 'text')
    .addColumn('push_job_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('trackings').dropColumn('push_job_id').dropColumn('push_job_at').execute();
}
