import { describe, expect, it } from 'vitest';
import { maskCapabilities } from '../../src/http/request-context.ts';

describe('maskCapabilities', () => {
  it('keeps the record and watch uuids out of access logs', () => {
    expect(maskCapabilities('/watch/6b4a51ad-1eba-4478-af38-02d4660202d3/video')).toBe('/watch/:uuid/video');
    expect(maskCapabilities('/record/6b4a51ad-1eba-4478-af38-02d4660202d3')).toBe('/record/:uuid');
    expect(maskCapabilities('/v1/orders/ord_1')).toBe('/v1/orders/ord_1');
  });

  it('keeps the thank-you key out too, and a key in a path spelt in other case (gift pages probe)', () => {
    expect(maskCapabilities('/thanks/k3y-only-the-sender-has/video')).toBe('/thanks/:key/video');
    expect(maskCapabilities('/thanks/k3y-only-the-sender-has')).toBe('/thanks/:key');
    expect(maskCapabilities('/WATCH/6b4a51ad-1eba-4478-af38-02d4660202d3')).toBe('/WATCH/:uuid');
  });

  it('masks an e-mail address or a phone number a client put where an id goes (API probe)', () => {
    expect(maskCapabilities('/v1/orders/jane.doe@example.com')).toBe('/v1/orders/:redacted');
    expect(maskCapabilities('/v1/orders/jane.doe%40example.com/events')).toBe('/v1/orders/:redacted/events');
    expect(maskCapabilities('/v1/orders/+14155550123')).toBe('/v1/orders/:redacted');
    // A tracking number in the sandbox's paths is not personal: it stays.
    expect(maskCapabilities('/sandbox/carriers/fedex/packages/986578788855')).toBe(
      '/sandbox/carriers/fedex/packages/986578788855',
    );
  });
});
