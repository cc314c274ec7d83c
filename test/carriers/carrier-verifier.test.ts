import { describe, expect, it } from 'vitest';
import { carrierVerifier } from '../../src/carriers/carrier-verifier.ts';
import { createFedexClient } from '../../src/carriers/clients/fedex.ts';
import type { CarrierClient } from '../../src/carriers/clients/types.ts';
import type { CarrierCode } from '../../src/carriers/carrier-code.ts';
import { createLogger } from '../../src/logger.ts';
import type { RunningCarrierSandbox } from '../../src/carriers/sandbox/index.ts';
import type { SandboxControl } from './sandbox/support/control.ts';
import { carrierSandboxForFile } from './sandbox/support/sandbox-for-file.ts';

/**
 * The warning a PUT gets when the carrier cannot confirm its number says what happened (tracking
 * probe: "could not be reached" for a carrier that asked us to wait or answered garbage). The real
 * FedEx client against the carrier sandbox, whose faults script the carrier's bad days.
 */
let running: RunningCarrierSandbox;
let control: SandboxControl;
carrierSandboxForFile((started) => ({ running, control } = started));

const NUMBER = '986578788855';

function verifier(answer?: () => Promise<Response>) {
  const fedex = createFedexClient({
    baseUrl: `${running.baseUrl}/fedex`,
    clientId: 'doorstep',
    clientSecret: 'secret',
    fetch: async (input, init) =>
      answer && String(input).endsWith('/track/v1/trackingnumbers') ? answer() : fetch(input, init),
  });
  return carrierVerifier({ fedex } as Record<CarrierCode, CarrierClient>, {
    timeoutMs: 2_000,
    logger: createLogger('silent'),
  });
}

describe('carrierVerifier, when FedEx cannot confirm', () => {
  it('says FedEx asked us to wait on a 429', async () => {
    await control.faults('fedex', { rate_limit: 1, retry_after_seconds: 1 });
    const { warning } = await verifier().verify('fedex', NUMBER);
    expect(warning?.message).toBe(
      `FedEx asked Doorstep to wait (rate limited), so it could not validate the tracking number "${NUMBER}" yet. It is stored and will be tracked.`,
    );
  });

  it('says its answer could not be read when it is not JSON', async () => {
    const { warning } = await verifier(async () => new Response('{"output":{"complete', { status: 200 })).verify(
      'fedex',
      NUMBER,
    );
    expect(warning?.message).toBe(
      `FedEx's answer could not be read, so Doorstep could not validate the tracking number "${NUMBER}" yet. It is stored and will be tracked.`,
    );
  });

  it('says it could not be reached when nothing came back', async () => {
    const { warning } = await verifier(async () => Promise.reject(new TypeError('fetch failed'))).verify(
      'fedex',
      NUMBER,
    );
    expect(warning?.message).toBe(
      `FedEx could not be reached, so Doorstep could not validate the tracking number "${NUMBER}" yet. It is stored and will be tracked.`,
    );
  });
});
