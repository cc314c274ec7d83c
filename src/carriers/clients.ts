import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { carrierBudgets } from './budget.ts';
import { CARRIER_CODES, type CarrierCode } from './carrier-code.ts';
import { createFedexClient } from './clients/fedex.ts';
import type { CarrierCall, CarrierCallBudget, CarrierClient, CarrierClientOptions } from './clients/types.ts';
import { createUpsClient } from './clients/ups.ts';
import { createUspsClient } from './clients/usps.ts';
import { createCarrierQuota } from './quota.ts';

export interface CarrierClients {
  clients: Record<CarrierCode, CarrierClient>;
  /** Carriers without credentials, served by the built-in sandbox. */
  sandboxed: CarrierCode[];
  /** Each carrier's shared call budget (./quota.ts), read by the operators' metrics. */
  quota: Record<CarrierCode, CarrierCallBudget>;
  /** What every call reports to (the debug log line, then `observe`): for the carriers' other clients, such as push. */
  onCall: (call: CarrierCall) => void;
}

/** Where a carrier without credentials is reached, with the sandbox's throw-away credentials. */
export function sandboxEndpoint(
  sandboxBaseUrl: string,
  carrier: CarrierCode,
): { baseUrl: string; clientId: string; clientSecret: string } {
  return { baseUrl: `${sandboxBaseUrl}/${carrier}`, clientId: 'doorstep-sandbox', clientSecret: 'doorstep-sandbox' };
}

const factories: Record<CarrierCode, (options: CarrierClientOptions) => CarrierClient> = {
  ups: createUpsClient,
  fedex: createFedexClient,
  usps: createUspsClient,
};

/**
 * Real clients for every carrier; those without configured credentials point at the sandbox
 * (`sandboxBaseUrl`, e.g. http://127.0.0.1:3000/sandbox) with throw-away credentials. Every call is
 * logged with its outcome and duration — never with credentials or tokens. Every tracking call, for
 * polling or validation, first spends from the carrier's budget shared in `redis` (./quota.ts).
 */
export function createCarrierClients(
  config: Pick<Config, 'carriers' | 'carrierQuotas' | 'queuePrefix'>,
  sandboxBaseUrl: string,
  logger: Logger,
  redis: Redis,
  /** Every call's outcome, for the metrics (besides the debug log line). */
  observe?: (call: CarrierCall) => void,
): CarrierClients {
  const sandboxed = CARRIER_CODES.filter((carrier) => !config.carriers[carrier]);
  const budgets = carrierBudgets(config.carrierQuotas, sandboxed);
  const quota = createCarrierQuota({ redis, prefix: config.queuePrefix, budgets, logger });
  const onCall = (call: CarrierCall) => {
    logger.debug({ carrierCall: call }, 'carrier call');
    observe?.(call);
  };
  const clients = Object.fromEntries(
    CARRIER_CODES.map((carrier) => {
      const credentials = config.carriers[carrier];
      const options: CarrierClientOptions = credentials
        ? { ...credentials, onCall, budget: quota[carrier] }
        : { ...sandboxEndpoint(sandboxBaseUrl, carrier), onCall, budget: quota[carrier] };
      return [carrier, factories[carrier](options)];
    }),
  ) as Record<CarrierCode, CarrierClient>;
  return { clients, sandboxed, quota, onCall };
}
