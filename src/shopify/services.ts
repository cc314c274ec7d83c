import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderService } from '../orders/service.ts';
import type { ShopifyConfig } from './config.ts';
import { createShopifyLibrary, type ShopifyLibrary } from './library.ts';
import { shopOrderLookUp } from './orders/order-look-up.ts';
import { ShopifyOrderSync, type ObserveTracking } from './orders/order-sync.ts';
import { reenqueueUnprocessedWebhooks, type EnqueueWebhook } from './intake/queue.ts';
import { IntakeLoad } from './intake/intake-priority.ts';
import { ReceiptHandOff, type EnqueueReceipts } from './intake/receipt-hand-off.ts';
import { resealShopTokens } from './auth/stored-tokens.ts';
import type { TokenCipher } from './auth/token-cipher.ts';
import { ShopTokens } from './auth/tokens.ts';
import { pruneUnknownShopReceipts, ShopifyWebhookProcessing, type WebhookObserver } from './intake/webhooks.ts';

export interface ShopifyDeps {
  config: ShopifyConfig;
  db: Db;
  orders: OrderService;
  logger: Logger;
  /** Seals and opens the shops' tokens at rest (TOKEN_ENCRYPTION_KEY; src/shopify/auth/token-key-file.ts). */
  tokenCipher: TokenCipher;
  now?: () => Date;
  /** Hands a stored receipt to the workers; absent (no Redis yet) → the reconciler picks it up. */
  enqueue?: EnqueueWebhook;
  /** Hands the receipts the intake has just stored to the workers, several at once (receipt-hand-off.ts). */
  enqueueReceipts?: EnqueueReceipts;
  /** Told what became of each webhook, at the endpoint and in processing (the operators' metrics). */
  observeWebhook?: WebhookObserver;
  /** Tracking's way in for fulfillment events as free observations (docs/tracking.md "Free signals"). */
  observeTracking?: ObserveTracking;
}

export interface ShopifyServices {
  config: ShopifyConfig;
  library: ShopifyLibrary;
  tokens: ShopTokens;
  sync: ShopifyOrderSync;
  processing: ShopifyWebhookProcessing;
  deps: ShopifyDeps;
  /** The intake's hand-off of stored receipts to the queue; null without Redis (the reconciler does it). */
  receiptHandOff: ReceiptHandOff | null;
  /** How busy this process's webhook intake is, for processing to yield to (intake-priority.ts). */
  intakeLoad: IntakeLoad;
  /**
   * Reconciler step: receipts stored while Redis was away (or whose job was lost) go to the queue
   * again; failed receipts of shops that never installed are pruned (webhooks.ts).
   */
  reconcile(): Promise<void>;
  /**
   * Start-up step of the web and worker processes: seals the tokens earlier versions stored as plain
   * text (stored-tokens.ts). Returns how many shops it changed.
   */
  sealPlainTextTokens(): Promise<number>;
}

/** Builds the Shopify module once, in the composition root. */
export function createShopifyServices(deps: ShopifyDeps): ShopifyServices {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ component: 'shopify' });
  const library = createShopifyLibrary(deps.config, logger);
  const tokens = new ShopTokens({ db: deps.db, shopify: library, logger, cipher: deps.tokenCipher, now });
  const sync = new ShopifyOrderSync({
    db: deps.db,
    orders: deps.orders,
    logger,
    now,
    maxVideoLinesPerOrder: deps.config.maxVideoLinesPerOrder,
    ...(deps.observeTracking ? { observeTracking: deps.observeTracking } : {}),
  });
  const processing = new ShopifyWebhookProcessing({
    db: deps.db,
    orders: deps.orders,
    logger,
    now,
    sync,
    lookUpOrder: shopOrderLookUp({ library, tokens }),
    ...(deps.observeWebhook ? { observe: deps.observeWebhook } : {}),
  });
  const reconcile = async () => {
    if (deps.enqueue) await reenqueueUnprocessedWebhooks(deps.db, deps.enqueue);
    const pruned = await pruneUnknownShopReceipts(deps.db, now());
    if (pruned > 0) logger.info({ pruned }, 'forgot failed webhooks of shops that never installed (retention or cap)');
  };
  const sealPlainTextTokens = async () => {
    const sealed = await resealShopTokens(deps.db, deps.tokenCipher, { onlyPlainText: true });
    if (sealed.changed > 0) logger.info({ shops: sealed.changed }, 'encrypted Shopify tokens stored as plain text');
    return sealed.changed;
  };
  const receiptHandOff = deps.enqueueReceipts ? new ReceiptHandOff(deps.enqueueReceipts, logger) : null;
  return {
    config: deps.config,
    library,
    tokens,
    sync,
    processing,
    deps: { ...deps, now },
    receiptHandOff,
    intakeLoad: new IntakeLoad(),
    reconcile,
    sealPlainTextTokens,
  };
}
