import { describe, expect, it } from 'vitest';
import { maskCapabilities } from '../../src/http/request-context.ts';

describe('maskCapabilities', () => {
  it('keeps the record and watch uuids out of access logs', () => {
    expect(maskCapabilities('/watch/6b4a51ad-1eba-4478-af38-02d4660202d3/video')).toBe('/watch/:uuid/video');
    expect(maskCapabilities('/record/6b4a51ad-1eba-4478-af38-02d4660202d3')).toBe('/record/:uuid');
    expect(maskCapabilities('/v1/orders/ord_1')).toBe('/v1/orders/ord_1');
  });
});
