import { describe, expect, it } from 'vitest';
import type { RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import { ManualClock, type SandboxControl } from './support/control.ts';
import { carrierSandboxForFile } from './support/sandbox-for-file.ts';

describe('sandbox control API', () => {
  const clock = new ManualClock(Date.parse('2025-06-02T12:00:00Z'));
  let running: RunningCarrierSandbox;
  let control: SandboxControl;

  carrierSandboxForFile((started) => ({ running, control } = started), { now: clock.now });

  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as unknown });

  it('appends events to a package, creating it, and shows them', async () => {
    const created = await json(
      await control.send('POST', '/carriers/fedex/packages/1234 5678 9012/events', {
        status: 'in_transit',
        estimated_delivery_at: '2025-06-04T20:00:00-04:00',
        description: 'Departed',
      }),
    );
    expect(created).toEqual({
      status: 201,
      body: {
        carrier: 'fedex',
        tracking_number: '123456789012',
        events: [
          {
            status: 'in_transit',
            at: '2025-06-02T12:00:00.000Z',
            estimated_delivery_at: '2025-06-05T00:00:00.000Z',
            description: 'Departed',
          },
        ],
      },
    });
    await control.event('fedex', '123456789012', { status: 'delivered', at: '2025-06-03T15:00:00Z' });
    const shown = await json(await control.send('GET', '/carriers/fedex/packages/123456789012'));
    expect(shown.body).toMatchObject({
      events: [
        { status: 'in_transit' },
        { status: 'delivered', at: '2025-06-03T15:00:00.000Z', estimated_delivery_at: null, description: null },
      ],
    });
  });

  it('keeps carriers apart', async () => {
    await control.event('ups', '1Z999AA10123456784', { status: 'in_transit' });
    expect((await control.send('GET', '/carriers/usps/packages/1Z999AA10123456784')).status).toBe(404);
  });

  it('answers an unknown package with 404', async () => {
    expect(await json(await control.send('GET', '/carriers/ups/packages/1Z999AA10123456784'))).toEqual({
      status: 404,
      body: { error: { type: 'not_found', message: 'No ups package 1Z999AA10123456784 in the sandbox.' } },
    });
  });

  it.each([
    ['an unknown status', { status: 'lost' }, 'status must be one of'],
    ['a missing status', {}, 'status'],
    ['a time without a zone', { status: 'delivered', at: '2025-06-02T12:00:00' }, 'at: must be an ISO 8601 timestamp'],
    ['an unknown field', { status: 'delivered', when: 'now' }, 'when'],
    ['an empty description', { status: 'delivered', description: '' }, 'description'],
  ])('refuses %s with 422', async (_, body, fragment) => {
    const response = await json(await control.send('POST', '/carriers/ups/packages/1Z999AA10123456784/events', body));
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ error: { type: 'validation_error', message: expect.stringContaining(fragment) } });
  });

  it('refuses an unknown carrier and a body that is not JSON with 422', async () => {
    const carrier = await json(
      await control.send('POST', '/carriers/dhl/packages/123/events', { status: 'delivered' }),
    );
    expect(carrier).toEqual({
      status: 422,
      body: {
        error: { type: 'validation_error', message: 'Invalid carrier: carrier must be one of ups, fedex, usps' },
      },
    });
    const broken = await fetch(`${running.baseUrl}/carriers/ups/packages/1Z/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"status":',
    });
    expect(broken.status).toBe(422);
  });

  it('sets, merges and clears faults', async () => {
    expect((await control.send('POST', '/carriers/usps/faults', { rate_limit: 2 })).status).toBe(204);
    expect((await control.send('POST', '/carriers/usps/faults', { delay_ms: 5, unauthorized: 1 })).status).toBe(204);
    expect(running.sandbox.state.carriers.usps.faults.settings).toEqual({
      rateLimit: 2,
      serverError: 0,
      unauthorized: 1,
      delayMs: 5,
      retryAfterSeconds: 1,
    });
    expect((await control.send('DELETE', '/carriers/usps/faults')).status).toBe(204);
    expect(running.sandbox.state.carriers.usps.faults.settings).toEqual({
      rateLimit: 0,
      serverError: 0,
      unauthorized: 0,
      delayMs: 0,
      retryAfterSeconds: 1,
    });
  });

  it.each([{ rate_limit: -1 }, { delay_ms: 1.5 }, { server_error: '2' }, { surprise: 1 }])(
    'refuses faults %o with 422',
    async (body) => {
      expect((await control.send('POST', '/carriers/ups/faults', body)).status).toBe(422);
    },
  );

  it('counts tracking and token calls per carrier, faulted ones included', async () => {
    const token = running.sandbox.state.tokens.issue('ups').accessToken;
    await control.faults('ups', { rate_limit: 1 });
    const track = () =>
      fetch(`${running.baseUrl}/ups/api/track/v1/details/1Z999AA10123456784`, {
        headers: { authorization: `Bearer ${token}`, transId: 't', transactionSrc: 's' },
      });
    expect((await track()).status).toBe(429);
    expect((await track()).status).toBe(200);
    await fetch(`${running.baseUrl}/ups/security/v1/oauth/token`, { method: 'POST' });
    expect(await control.stats('ups')).toMatchObject({ track_calls: 2, oauth_calls: 1 });
    expect(await control.stats('fedex')).toMatchObject({ track_calls: 0, oauth_calls: 0 });
  });

  it('forgets everything on POST /sandbox/reset', async () => {
    await control.event('usps', '9400111899223197428490', { status: 'delivered' });
    await control.faults('usps', { server_error: 3 });
    expect((await control.send('POST', '/reset')).status).toBe(204);
    expect((await control.send('GET', '/carriers/usps/packages/9400111899223197428490')).status).toBe(404);
    expect(running.sandbox.state.carriers.usps.faults.settings.serverError).toBe(0);
  });

  it('answers unknown routes with a JSON 404', async () => {
    expect(await json(await fetch(`${running.baseUrl}/nowhere`))).toEqual({
      status: 404,
      body: { error: { type: 'not_found', message: 'No sandbox route for GET /sandbox/nowhere.' } },
    });
  });
});
