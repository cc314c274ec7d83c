import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as foundation from './migrations/001-foundation.ts';
import * as tracking from './migrations/002-tracking.ts';
import * as sends from './migrations/003-sends.ts';
import * as videos from './migrations/004-videos.ts';
import * as shopify from './migrations/005-shopify.ts';
import * as orderOutbox from './migrations/006-order-outbox.ts';
import * as shopifyGiftItems from './migrations/007-shopify-gift-items.ts';
import * as billing from './migrations/008-billing.ts';
import * as admin from './migrations/009-admin.ts';
import * as billingCurrency from './migrations/010-billing-currency.ts';
import * as hotPathIndexes from './migrations/011-hot-path-indexes.ts';
import * as carrierPush from './migrations/012-carrier-push.ts';
import * as webhookTrust from './migrations/014-webhook-trust.ts';
import * as trackingDestination from './migrations/015-tracking-destination.ts';
import * as videoPosters from './migrations/016-video-posters.ts';
import * as thanks from './migrations/017-thanks.ts';
import * as emailEvents from './migrations/018-email-events.ts';
import * as accountSettings from './migrations/019-account-settings.ts';
import * as accountLocale from './migrations/020-account-locale.ts';
import * as videoTranscripts from './migrations/021-video-transcripts.ts';
import * as carrierDeliveryHours from './migrations/025-carrier-delivery-hours.ts';
import * as sendsRecipientFirst from './migrations/026-sends-recipient-first.ts';
import * as sendsOrderRecorded from './migrations/027-sends-order-recorded.ts';
import * as shopsPlainTextTokens from './migrations/031-shops-plain-text-tokens.ts';
import * as vacuumHotTables from './migrations/032-vacuum-hot-tables.ts';
import * as shopifyQuantities from './migrations/033-shopify-quantities.ts';
import * as videoRenditions from './migrations/034-video-renditions.ts';
import * as shopifyTestGifts from './migrations/035-shopify-test-gifts.ts';
import * as shopTimeZones from './migrations/036-shop-time-zones.ts';
import * as accountLogos from './migrations/037-account-logos.ts';
import * as accountBrand from './migrations/038-account-brand.ts';
import * as carrierPushJobs from './migrations/040-carrier-push-jobs.ts';
import * as freeSignals from './migrations/041-free-signals.ts';
import * as sendsAttention from './migrations/043-sends-attention.ts';
import * as sendOnOnlyScheduled from './migrations/044-send-on-only-scheduled.ts';
import * as shopifyCancelledFirst from './migrations/045-shopify-cancelled-first.ts';
import * as shopifyRefusedLines from './migrations/046-shopify-refused-lines.ts';
import * as trackingsOrderPlaced from './migrations/047-trackings-order-placed.ts';
import * as shopifyCarrierDelivered from './migrations/048-shopify-carrier-delivered.ts';
import * as trackingsRateLimitedSince from './migrations/049-trackings-rate-limited-since.ts';
import * as shopifyGiftLineTitles from './migrations/050-shopify-gift-line-titles.ts';

/**
 * Migrations are listed here in code (not discovered from disk) so that they run the same under
 * tsx, bundlers and tests. Append new ones; never edit one that has shipped.
 */
const migrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-tracking': tracking,
  '003-sends': sends,
  '004-videos': videos,
  '005-shopify': shopify,
  '006-order-outbox': orderOutbox,
  '007-shopify-gift-items': shopifyGiftItems,
  '008-billing': billing,
  '009-admin': admin,
  '010-billing-currency': billingCurrency,
  '011-hot-path-indexes': hotPathIndexes,
  '012-carrier-push': carrierPush,
  '014-webhook-trust': webhookTrust,
  '015-tracking-destination': trackingDestination,
  '016-video-posters': videoPosters,
  '017-thanks': thanks,
  '018-email-events': emailEvents,
  '019-account-settings': accountSettings,
  '020-account-locale': accountLocale,
  '021-video-transcripts': videoTranscripts,
  '025-carrier-delivery-hours': carrierDeliveryHours,
  '026-sends-recipient-first': sendsRecipientFirst,
  '027-sends-order-recorded': sendsOrderRecorded,
  '031-shops-plain-text-tokens': shopsPlainTextTokens,
  '032-vacuum-hot-tables': vacuumHotTables,
  '033-shopify-quantities': shopifyQuantities,
  '034-video-renditions': videoRenditions,
  '035-shopify-test-gifts': shopifyTestGifts,
  '036-shop-time-zones': shopTimeZones,
  '037-account-logos': accountLogos,
  '038-account-brand': accountBrand,
  '040-carrier-push-jobs': carrierPushJobs,
  '041-free-signals': freeSignals,
  '043-sends-attention': sendsAttention,
  '044-send-on-only-scheduled': sendOnOnlyScheduled,
  '045-shopify-cancelled-first': shopifyCancelledFirst,
  '046-shopify-refused-lines': shopifyRefusedLines,
  '047-trackings-order-placed': trackingsOrderPlaced,
  '048-shopify-carrier-delivered': shopifyCarrierDelivered,
  '049-trackings-rate-limited-since': trackingsRateLimitedSince,
  '050-shopify-gift-line-titles': shopifyGiftLineTitles,
};

/** Every migration this build knows, in order: readiness compares them with what the database applied. */
export function knownMigrations(): string[] {
  return Object.keys(migrations).sort();
}

const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

/**
 * The database was migrated by a newer build than this one (a rollback, or an old process restarting
 * during a rolling deploy): refused in words an operator acts on, before Kysely's "corrupted
 * migrations" and its stack (upgrade probe). The data is untouched.
 */
export class SchemaNewerThanBuildError extends Error {
  override name = 'SchemaNewerThanBuildError';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const newer = await appliedMigrationsUnknownToThisBuild(db);
  if (newer.length > 0)
    throw new SchemaNewerThanBuildError(
      `The database's schema is newer than this build: it has migration${newer.length === 1 ? '' : 's'} ${newer.join(', ')}, which this version does not know. Run the newer version of Doorstep (or restore the backup taken before upgrading); nothing was changed.`,
    );
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read before any schema is known
async function appliedMigrationsUnknownToThisBuild(db: Kysely<any>): Promise<string[]> {
  const table = await sql<{ found: string | null }>`select to_regclass('kysely_migration')::text as found`.execute(db);
  if (!table.rows[0]?.found) return [];
  const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return applied.rows.map((row) => row.name).filter((name) => !(name in migrations));
}
