import type { Redis } from 'ioredis';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import { createCarrierClients, sandboxEndpoint } from '../carriers/clients.ts';
import {
  createFedexAivSubscriptions,
  fedexPushResult,
  generatedFedexSecurityToken,
} from '../carriers/clients/fedex-aiv.ts';
import type { CarrierCall, CarrierCallBudget, CarrierClient } from '../carriers/clients/types.ts';
import { upsEventResult, upsTrackingEventSchema } from '../carriers/clients/ups-track-alert.ts';
import {
  createUspsSubscriptions,
  generatedUspsPushSecret,
  uspsNotificationResult,
} from '../carriers/clients/usps-subscriptions.ts';
import type { CarrierSandbox } from '../carriers/sandbox/index.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderService } from '../orders/service.ts';
import { TrackingPoller, type DeliveryGate } from './poller.ts';
import { generatedPushCredentials, type PushCredentials } from './push-credentials.ts';
import { PushEvents } from './push-events.ts';
import { UPS_TRACK_ALERT_PATH, UPS_TRACK_ALERT_TOKEN_PATH } from './push-routes.ts';
import { FEDEX_AIV_WEBHOOK_PATH } from './push-routes-fedex.ts';
import { USPS_SUBSCRIPTIONS_TRACKING_PATH } from './push-routes-usps.ts';
import { PushSubscriptions } from './push-subscriptions.ts';
import { DEMO_POLL_INTERVAL_MS, type ScheduleOptions } from './schedule.ts';
import { trackingSubscriber } from './trackings.ts';

/**
 * The tracking module's two factories, called by the composition root (src/app.ts): the carriers as
 * tracking reaches them (made first: the order service validates tracking numbers with the same
 * clients), then tracking itself once the order service exists.
 */

/** The carriers' clients, their push, their schedules, and the sandbox standing in for those without credentials. */
export interface CarrierAccess {
  clients: Record<CarrierCode, CarrierClient>;
  /** Carriers without credentials; they run against `sandbox`. */
  sandboxed: CarrierCode[];
  /** Each carrier's shared call budget, read by the operators' metrics. */
  quota: Record<CarrierCode, CarrierCallBudget>;
  schedules: Record<CarrierCode, ScheduleOptions>;
  /** The fake carrier APIs, mounted at /sandbox, when any carrier lacks credentials. */
  sandbox: CarrierSandbox | null;
  /** Carrier push's webhook credentials (docs/tracking.md "Push"); null → that carrier is polled only. */
  push: {
    ups: PushCredentials | null;
    /** USPS Subscriptions-Tracking's listener secret. */
    usps: { secret: string } | null;
    /** FedEx AIV's webhook project security token. */
    fedex: { securityToken: string } | null;
  };
}

export interface CarrierAccessOptions {
  /** Where sandboxed carriers are reached (this server's own /sandbox unless told). */
  sandboxBaseUrl: string;
  /** Base of the push webhook URLs the in-process sandbox calls back; default this server over loopback. */
  pushCallbackBaseUrl?: string | undefined;
  /** Poll cadence for sandboxed carriers (the demo profile); default 5 s. */
  sandboxPollIntervalMs?: number | undefined;
  /** 'carrier': sandboxed carriers are polled on the real carriers' schedule, not the demo profile. */
  sandboxSchedule?: 'demo' | 'carrier' | undefined;
  logger: Logger;
  /** The quota's connection (fail-fast, shared with the queue producers). */
  redis: Redis;
  /** Every carrier call's outcome, for the metrics. */
  observeCall: (call: CarrierCall) => void;
}

export async function createCarrierAccess(config: Config, options: CarrierAccessOptions): Promise<CarrierAccess> {
  const { sandboxBaseUrl, logger } = options;
  const { clients, sandboxed, quota, onCall } = createCarrierClients(
    config,
    sandboxBaseUrl,
    logger,
    options.redis,
    options.observeCall,
  );
  // The in-process sandbox calls back over loopback, as the clients reach it, so a PUBLIC_URL that is
  // a tunnel (shopify app dev) or not reachable from here cannot silence it. Real carriers are given
  // PUBLIC_URL's routes (docs/tracking.md "Push").
  const loopbackBase = (options.pushCallbackBaseUrl ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, '');

  // USPS Subscriptions-Tracking with USPS_PUSH_SECRET, or the sandboxed USPS with a throw-away secret.
  const uspsPushSecret =
    !config.carrierPush.enabled || !config.carrierPush.usps.enabled
      ? null
      : (config.carrierPush.usps.secret ?? (sandboxed.includes('usps') ? generatedUspsPushSecret() : null));
  const uspsPush = uspsPushSecret ? { secret: uspsPushSecret } : null;
  if (uspsPush) {
    const real = config.carriers.usps;
    clients.usps = {
      ...clients.usps,
      push: createUspsSubscriptions({
        ...(real ?? sandboxEndpoint(sandboxBaseUrl, 'usps')),
        listenerUrl: `${real ? config.publicUrl : loopbackBase}${USPS_SUBSCRIPTIONS_TRACKING_PATH}`,
        secret: uspsPush.secret,
        onCall,
      }),
    };
  }

  // FedEx Advanced Integrated Visibility with FEDEX_PUSH_SECURITY_TOKEN, or the sandboxed FedEx with a
  // throw-away token; FedEx posts to $PUBLIC_URL's route, entered on the AIV project in FedEx's portal.
  const fedexPushSettings = config.carrierPush.fedex;
  const fedexPushToken =
    !config.carrierPush.enabled || !fedexPushSettings.enabled
      ? null
      : (fedexPushSettings.securityToken ?? (sandboxed.includes('fedex') ? generatedFedexSecurityToken() : null));
  const fedexPush = fedexPushToken ? { securityToken: fedexPushToken } : null;
  if (fedexPush) {
    const real = config.carriers.fedex;
    clients.fedex = {
      ...clients.fedex,
      push: createFedexAivSubscriptions({
        ...(real
          ? { baseUrl: real.baseUrl, ...(fedexPushSettings.client ?? real) }
          : sandboxEndpoint(sandboxBaseUrl, 'fedex')),
        // loadConfig requires the account with real FedEx credentials; the sandbox takes any 9 digits.
        accountNumber: fedexPushSettings.accountNumber ?? '000000000',
        projectId: fedexPushSettings.projectId,
        onCall,
      }),
    };
  }

  // UPS Track Alert with UPS_PUSH_CLIENT_ID/SECRET, or the sandboxed UPS with throw-away ones.
  const upsPush = !config.carrierPush.enabled
    ? null
    : (config.carrierPush.ups ?? (sandboxed.includes('ups') ? generatedPushCredentials() : null));

  // A development fake: loaded only when a carrier has no credentials (never in production unless
  // CARRIER_SANDBOX=on), so production code does not carry it (.dependency-cruiser.json).
  const sandbox = sandboxed.length > 0 ? (await import('../carriers/sandbox/index.ts')).createCarrierSandbox() : null;
  if (sandbox && upsPush && sandboxed.includes('ups')) {
    sandbox.state.push.register('ups', {
      url: `${loopbackBase}${UPS_TRACK_ALERT_PATH}`,
      tokenUrl: `${loopbackBase}${UPS_TRACK_ALERT_TOKEN_PATH}`,
      ...upsPush,
    });
  }
  if (sandbox && fedexPush && sandboxed.includes('fedex')) {
    // The AIV project's destination URL and security token, as entered on FedEx's portal.
    sandbox.state.push.fedex.register({ url: `${loopbackBase}${FEDEX_AIV_WEBHOOK_PATH}`, ...fedexPush });
  }

  const demo: ScheduleOptions = {
    profile: 'demo',
    demoIntervalMs: options.sandboxPollIntervalMs ?? DEMO_POLL_INTERVAL_MS,
  };
  const schedules = {
    ups: {},
    fedex: {},
    usps: {},
    ...(options.sandboxSchedule === 'carrier' ? {} : Object.fromEntries(sandboxed.map((carrier) => [carrier, demo]))),
  } as Record<CarrierCode, ScheduleOptions>;

  return { clients, sandboxed, quota, schedules, sandbox, push: { ups: upsPush, usps: uspsPush, fedex: fedexPush } };
}

export interface TrackingModule {
  poller: TrackingPoller;
  /** Carrier push (docs/tracking.md "Push"): subscriptions and the stored events. */
  pushSubscriptions: PushSubscriptions;
  pushEvents: PushEvents;
  /** What tracking does on an order change: the order outbox's subscriber. */
  subscriber: OrderEventSubscriber;
}

export function createTracking(deps: {
  db: Db;
  orders: OrderService;
  carriers: CarrierAccess;
  logger: Logger;
  now: () => Date;
  /** Whether a carrier's delivery delivers its order (a gift in several boxes: the last one does). */
  deliversOrder?: DeliveryGate;
}): TrackingModule {
  const { db, orders, carriers, logger, now } = deps;
  const { clients, schedules, push } = carriers;
  const poller = new TrackingPoller({
    db,
    orders,
    clients,
    schedules,
    logger,
    now,
    ...(deps.deliversOrder ? { deliversOrder: deps.deliversOrder } : {}),
  });
  const pushEvents = new PushEvents({
    db,
    logger,
    now,
    readers: {
      ups: (body) => upsEventResult(upsTrackingEventSchema.parse(body)),
      usps: (body) => uspsNotificationResult(body),
      fedex: (body) => fedexPushResult(body),
    },
    apply: (carrier, result) => poller.applyPushed(carrier, result),
  });
  const pushSubscriptions = new PushSubscriptions({
    db,
    clients,
    enabled: (['ups', 'usps', 'fedex'] as const).filter((carrier) => push[carrier] !== null),
    logger,
    now,
    accepts: { ups: (number) => /^1[ZR][0-9A-Z]+$/.test(number) },
  });
  return { poller, pushSubscriptions, pushEvents, subscriber: trackingSubscriber({ now, schedules }) };
}
