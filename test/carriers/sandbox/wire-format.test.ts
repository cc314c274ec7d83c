import { beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_STATUSES, type RunningCarrierSandbox } from '../../../src/carriers/sandbox/index.ts';
import type { SandboxControl } from './support/control.ts';
import { OpenApiSpec } from './support/openapi.ts';
import { carrierSandboxForFile } from './support/sandbox-for-file.ts';

/**
 * Every body the fake carriers send is checked against the carrier's published OpenAPI schema, for
 * every scripted status, so a real client written from the same spec reads them as it would the
 * carrier's. (openapi.ts explains the two places where the specs contradict themselves.)
 */
const upsOauth = await OpenApiSpec.load('ups-oauth-client-credentials.openapi.yaml');
const ups = await OpenApiSpec.load('ups-tracking.openapi.yaml');
const fedex = await OpenApiSpec.load('fedex-track.openapi.json');
const uspsV3 = await OpenApiSpec.load('usps-tracking-v3.openapi.yaml');
const uspsV3r2 = await OpenApiSpec.load('usps-tracking-v3r2.openapi.yaml');

const UPS_DETAILS = '/track/v1/details/{inquiryNumber}';
const FEDEX_TRACK = '/track/v1/trackingnumbers';
const USPS_V3 = '/tracking/{trackingNumber}';

describe('sandbox wire formats', () => {
  let running: RunningCarrierSandbox;
  let control: SandboxControl;
  const tokens = { ups: '', fedex: '', usps: '' };

  carrierSandboxForFile((started) => ({ running, control } = started));
  beforeEach(() => {
    tokens.ups = running.sandbox.state.tokens.issue('ups').accessToken;
    tokens.fedex = running.sandbox.state.tokens.issue('fedex').accessToken;
    tokens.usps = running.sandbox.state.tokens.issue('usps').accessToken;
  });

  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${running.baseUrl}${path}`, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : null };
  };
  /** A token request to the sandboxed UPS as the client sends it: HTTP Basic `credentials` (id:secret), a form body. */
  const upsToken = (credentials: string, grantType = 'client_credentials') =>
    call('/ups/security/v1/oauth/token', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `grant_type=${grantType}`,
    });
  const upsTrack = (number: string, headers: Record<string, string> = {}) =>
    call(`/ups/api/track/v1/details/${number}`, {
      headers: { authorization: `Bearer ${tokens.ups}`, transId: 'a'.repeat(32), transactionSrc: 'test', ...headers },
    });
  const fedexTrack = (body: unknown, token = tokens.fedex) =>
    call('/fedex/track/v1/trackingnumbers', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const fedexBody = (...numbers: string[]) => ({
    includeDetailedScans: false,
    trackingInfo: numbers.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })),
  });
  const uspsV3Track = (number: string, expand = 'DETAIL', token = tokens.usps) =>
    call(`/usps/tracking/v3/tracking/${number}?expand=${expand}`, { headers: { authorization: `Bearer ${token}` } });
  const uspsV3r2Track = (body: unknown) =>
    call('/usps/tracking/v3r2/tracking', {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.usps}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** A package that went through `status` after a couple of earlier events, with an estimate. */
  const script = async (carrier: 'ups' | 'fedex' | 'usps', number: string, status: string) => {
    await control.event(carrier, number, { status: 'pre_transit', at: '2025-06-01T14:00:00Z' });
    await control.event(carrier, number, {
      status: 'in_transit',
      at: '2025-06-02T03:00:00Z',
      estimated_delivery_at: '2025-06-04T02:00:00Z',
    });
    await control.event(carrier, number, { status, at: '2025-06-03T16:20:00Z' });
  };

  describe('UPS', () => {
    it('issues tokens as tokenSuccessResponse', async () => {
      const response = await upsToken('id:secret');
      expect(response.status).toBe(200);
      expect(
        upsOauth.validate(upsOauth.responseSchema('/security/v1/oauth/token', 'post', 200), response.body),
      ).toEqual([]);
      expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: '3600', status: 'approved' });
    });

    it('rejects bad credentials and a wrong grant as tokenErrorResponse', async () => {
      const path = '/security/v1/oauth/token';
      const badSecret = await upsToken('id:invalid');
      expect(badSecret.status).toBe(401);
      expect(upsOauth.validate(upsOauth.responseSchema(path, 'post', 401), badSecret.body)).toEqual([]);
      const badGrant = await upsToken('id:secret', 'password');
      expect(badGrant.status).toBe(400);
      expect(upsOauth.validate(upsOauth.responseSchema(path, 'post', 400), badGrant.body)).toEqual([]);
    });

    it.each(SANDBOX_STATUSES)('answers a %s package as TrackApiResponse', async (status) => {
      await script('ups', '1Z999AA10123456784', status);
      const response = await upsTrack('1Z999AA10123456784');
      expect(response.status).toBe(200);
      expect(ups.validate(ups.responseSchema(UPS_DETAILS, 'get', 200), response.body)).toEqual([]);
    });

    it('answers an unknown number with 200 and warning TW0001', async () => {
      const response = await upsTrack('1Z999AA10123456784');
      expect(response.status).toBe(200);
      expect(ups.validate(ups.responseSchema(UPS_DETAILS, 'get', 200), response.body)).toEqual([]);
      expect(response.body).toEqual({
        trackResponse: {
          shipment: [
            {
              inquiryNumber: '1Z999AA10123456784',
              warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }],
            },
          ],
        },
      });
    });

    it('requires the transId and transactionSrc headers', async () => {
      const response = await call('/ups/api/track/v1/details/1Z999AA10123456784', {
        headers: { authorization: `Bearer ${tokens.ups}` },
      });
      expect(response.status).toBe(400);
      expect(ups.validate(ups.responseSchema(UPS_DETAILS, 'get', 400), response.body)).toEqual([]);
    });

    it('answers faults in the Response error shape', async () => {
      await control.faults('ups', { rate_limit: 1, server_error: 1, retry_after_seconds: 3 });
      const limited = await upsTrack('1Z999AA10123456784');
      expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
      expect(ups.validate(ups.schema('Response'), limited.body)).toEqual([]);
      const failed = await upsTrack('1Z999AA10123456784');
      expect(failed.status).toBe(500);
      expect(ups.validate(ups.responseSchema(UPS_DETAILS, 'get', 500), failed.body)).toEqual([]);
      const unauthorized = await upsTrack('1Z999AA10123456784', { authorization: 'Bearer nope' });
      expect(unauthorized.status).toBe(401);
      expect(ups.validate(ups.schema('Response'), unauthorized.body)).toEqual([]);
    });
  });

  describe('FedEx', () => {
    it('issues tokens on a client-credentials form', async () => {
      const response = await call('/fedex/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=id&client_secret=secret',
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 3600,
        scope: 'CXS',
      });
    });

    it.each(SANDBOX_STATUSES)('answers a %s package as TrkcResponseVO_TrackingNumber', async (status) => {
      await script('fedex', '123456789012', status);
      const response = await fedexTrack(fedexBody('123456789012'));
      expect(response.status).toBe(200);
      expect(fedex.validate(fedex.responseSchema(FEDEX_TRACK, 'post', 200), response.body)).toEqual([]);
    });

    it('answers an unknown number with a NOTFOUND error inside the 200', async () => {
      const response = await fedexTrack(fedexBody('999999999999'));
      expect(response.status).toBe(200);
      expect(fedex.validate(fedex.responseSchema(FEDEX_TRACK, 'post', 200), response.body)).toEqual([]);
      expect(response.body).toMatchObject({
        output: {
          completeTrackResults: [
            { trackingNumber: '999999999999', trackResults: [{ error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND' } }] },
          ],
        },
      });
    });

    it('refuses more than 30 numbers, and none, with a 400 ErrorResponseVO', async () => {
      const tooMany = await fedexTrack(
        fedexBody(...Array.from({ length: 31 }, (_, index) => String(100000000000 + index))),
      );
      expect(tooMany.status).toBe(400);
      expect(fedex.validate(fedex.responseSchema(FEDEX_TRACK, 'post', 400), tooMany.body)).toEqual([]);
      const none = await fedexTrack({ includeDetailedScans: false, trackingInfo: [] });
      expect(none.status).toBe(400);
      expect(none.body).toMatchObject({ errors: [{ code: 'TRACKING.TRACKINGNUMBER.EMPTY' }] });
    });

    it('answers an expired token and a server fault in the documented error shapes', async () => {
      const unauthorized = await fedexTrack(fedexBody('123456789012'), 'expired');
      expect(unauthorized.status).toBe(401);
      expect(fedex.validate(fedex.responseSchema(FEDEX_TRACK, 'post', 401), unauthorized.body)).toEqual([]);
      await control.faults('fedex', { server_error: 1 });
      const failed = await fedexTrack(fedexBody('123456789012'));
      expect(failed.status).toBe(500);
      expect(fedex.validate(fedex.responseSchema(FEDEX_TRACK, 'post', 500), failed.body)).toEqual([]);
    });
  });

  describe('USPS', () => {
    it('issues tokens on a JSON client-credentials body', async () => {
      const response = await call('/usps/oauth2/v3/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'id', client_secret: 'secret' }),
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    });

    it.each(SANDBOX_STATUSES)('answers a %s package in v3 as TrackingDetails and TrackingSummary', async (status) => {
      await script('usps', '9400111899223197428490', status);
      const detail = await uspsV3Track('9400111899223197428490');
      expect(detail.status).toBe(200);
      expect(uspsV3.validate(uspsV3.schema('TrackingDetails'), detail.body)).toEqual([]);
      expect(uspsV3.validate(uspsV3.responseSchema(USPS_V3, 'get', 200), detail.body)).toEqual([]);
      const summary = await uspsV3Track('9400111899223197428490', 'SUMMARY');
      expect(uspsV3.validate(uspsV3.schema('TrackingSummary'), summary.body)).toEqual([]);
    });

    it.each(SANDBOX_STATUSES)('answers a %s package in v3r2 as TrackingDetails', async (status) => {
      await script('usps', '9400111899223197428490', status);
      const response = await uspsV3r2Track([{ trackingNumber: '9400111899223197428490' }]);
      expect(response.status).toBe(200);
      expect(uspsV3r2.validate(uspsV3r2.responseSchema('/tracking', 'post', 200), response.body)).toEqual([]);
    });

    it('answers a mixed v3r2 batch with a 207 MultiStatusResponse', async () => {
      await script('usps', '9400111899223197428490', 'delivered');
      const response = await uspsV3r2Track([
        { trackingNumber: '9400111899223197428490' },
        { trackingNumber: '9400111899223197420000' },
      ]);
      expect(response.status).toBe(207);
      expect(uspsV3r2.validate(uspsV3r2.responseSchema('/tracking', 'post', 207), response.body)).toEqual([]);
      expect(response.body).toMatchObject([
        { statusCode: '200' },
        { statusCode: '404', trackingNumber: '9400111899223197420000' },
      ]);
    });

    it('answers unknown numbers with a 404 ErrorMessage, in v3 and v3r2', async () => {
      const v3 = await uspsV3Track('9400111899223197420000');
      expect(v3.status).toBe(404);
      expect(uspsV3.validate(uspsV3.responseSchema(USPS_V3, 'get', 404), v3.body)).toEqual([]);
      const v3r2 = await uspsV3r2Track([{ trackingNumber: '9400111899223197420000' }]);
      expect(v3r2.status).toBe(404);
      expect(uspsV3r2.validate(uspsV3r2.responseSchema('/tracking', 'post', 404), v3r2.body)).toEqual([]);
    });

    it('refuses a v3r2 body that is not 1–35 {trackingNumber} items', async () => {
      for (const body of [
        [],
        Array.from({ length: 36 }, () => ({ trackingNumber: '9400111899223197428490' })),
        [{ trackingNumber: '9400', extra: true }],
        { trackingNumber: '9400111899223197428490' },
      ]) {
        const response = await uspsV3r2Track(body);
        expect(response.status).toBe(400);
        expect(uspsV3r2.validate(uspsV3r2.responseSchema('/tracking', 'post', 400), response.body)).toEqual([]);
      }
    });

    it('answers faults and a bad token in the documented error shapes', async () => {
      await control.faults('usps', { rate_limit: 1, server_error: 1, retry_after_seconds: 30 });
      const limited = await uspsV3Track('9400111899223197428490');
      expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '30']);
      expect(uspsV3.validate(uspsV3.responseSchema(USPS_V3, 'get', 429), limited.body)).toEqual([]);
      const unavailable = await uspsV3Track('9400111899223197428490');
      expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, null]);
      expect(uspsV3.validate(uspsV3.responseSchema(USPS_V3, 'get', 503), unavailable.body)).toEqual([]);
      const unauthorized = await uspsV3Track('9400111899223197428490', 'DETAIL', 'expired');
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer realm="https://api.usps.com"');
      expect(uspsV3.validate(uspsV3.responseSchema(USPS_V3, 'get', 401), unauthorized.body)).toEqual([]);
    });
  });

  // The checks above would pass vacuously if the validator accepted anything: the same calls must
  // reject a real sandbox body with one plausible mistake in it.
  describe('a body that breaks the published schema', () => {
    /** A deep copy of `body` with `edit` applied. */
    const broken = <T>(body: unknown, edit: (copy: T) => void): T => {
      const copy = structuredClone(body) as T;
      edit(copy);
      return copy;
    };

    it('fails for UPS: a count sent as a string, one delivery date instead of a list', async () => {
      await script('ups', '1Z999AA10123456784', 'delivered');
      const { body } = await upsTrack('1Z999AA10123456784');
      const schema = ups.responseSchema(UPS_DETAILS, 'get', 200);
      expect(ups.validate(schema, body)).toEqual([]);
      type Body = { trackResponse: { shipment: { package: { packageCount: unknown; deliveryDate: unknown[] }[] }[] } };
      const wrong = broken<Body>(body, (copy) => {
        const pkg = copy.trackResponse.shipment[0]?.package[0];
        if (!pkg) throw new Error('the sandbox sent no package');
        pkg.packageCount = '1';
        pkg.deliveryDate = pkg.deliveryDate[0] as unknown[];
      });
      expect(ups.validate(schema, wrong)).toEqual([
        '$.trackResponse.shipment[0].package[0].deliveryDate: must be array',
        '$.trackResponse.shipment[0].package[0].packageCount: must be integer',
      ]);
    });

    it('fails for FedEx: a scan location type the enum does not list', async () => {
      await script('fedex', '123456789012', 'delivered');
      const { body } = await fedexTrack(fedexBody('123456789012'));
      const schema = fedex.responseSchema(FEDEX_TRACK, 'post', 200);
      expect(fedex.validate(schema, body)).toEqual([]);
      type Body = {
        output: { completeTrackResults: { trackResults: { scanEvents: { locationType: string }[] }[] }[] };
      };
      const wrong = broken<Body>(body, (copy) => {
        const scan = copy.output.completeTrackResults[0]?.trackResults[0]?.scanEvents[0];
        if (!scan) throw new Error('the sandbox sent no scan event');
        scan.locationType = 'FRONT_PORCH';
      });
      expect(fedex.validate(schema, wrong)).toEqual([
        expect.stringMatching(
          /^\$\.output\.completeTrackResults\[0\]\.trackResults\[0\]\.scanEvents\[0\]\.locationType: must be equal to one of the allowed values /,
        ),
      ]);
    });

    it('fails for USPS v3r2: the v3 field name eventZIP in a closed event, a flag sent as a string', async () => {
      await script('usps', '9400111899223197428490', 'delivered');
      const { body } = await uspsV3r2Track([{ trackingNumber: '9400111899223197428490' }]);
      const schema = uspsV3r2.responseSchema('/tracking', 'post', 200);
      expect(uspsV3r2.validate(schema, body)).toEqual([]);
      type Body = { servicesEligibility: Record<string, unknown>; trackingEvents: Record<string, unknown>[] }[];
      const wrong = broken<Body>(body, (copy) => {
        const detail = copy[0];
        const event = detail?.trackingEvents[0];
        if (!detail || !event) throw new Error('the sandbox sent no tracking event');
        event['eventZIP'] = event['eventZIPCode'];
        delete event['eventZIPCode'];
        detail.servicesEligibility['RREEnabled'] = 'false';
      });
      expect(uspsV3r2.validate(schema, wrong)).toEqual([
        '$[0].servicesEligibility.RREEnabled: must be boolean',
        '$[0].trackingEvents[0]: must NOT have additional properties (eventZIP)',
      ]);
    });
  });

  it("does not accept one carrier's token at another", async () => {
    const response = await call('/usps/tracking/v3/tracking/9400111899223197428490', {
      headers: { authorization: `Bearer ${tokens.fedex}` },
    });
    expect(response.status).toBe(401);
  });
});
