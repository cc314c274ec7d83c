import { describe, expect, it } from 'vitest';
import { smsSegments } from '../../src/notifications/messages/sms-segments.ts';

// The published limits (3GPP TS 23.038 / 23.040, as carriers' calculators state them):
// GSM-7 160 in one SMS, 153 per part (154–306 → 2, 307 → 3); UCS-2 70, then 67 per part
// (68–134 → 2 once split, 135 → 3); extension-table characters cost two 7-bit units.
describe('smsSegments', () => {
  it('fits 160 GSM-7 characters in one segment and splits the 161st into 153-unit parts', () => {
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    expect(smsSegments('a'.repeat(306)).segments).toBe(2);
    expect(smsSegments('a'.repeat(307)).segments).toBe(3);
  });

  it('keeps accented letters of the default alphabet in GSM-7', () => {
    expect(smsSegments('José, Åsa, Müller & Søren: ¿Qué tal? £5 ¥6 @home_').encoding).toBe('GSM-7');
  });

  it('counts extension-table characters as two units and never splits one from its escape', () => {
    expect(smsSegments('€')).toEqual({ encoding: 'GSM-7', units: 2, segments: 1 });
    expect(smsSegments('{}[]~|^\\').units).toBe(16);
    expect(smsSegments('a'.repeat(158) + '€')).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSegments('a'.repeat(159) + '€')).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    // 152 units, then a 2-unit € that would straddle the part boundary: it opens part two.
    expect(smsSegments('a'.repeat(152) + '€' + 'a'.repeat(151)).segments).toBe(2);
    expect(smsSegments('a'.repeat(152) + '€' + 'a'.repeat(152)).segments).toBe(3);
  });

  it('switches the whole message to UCS-2 for one character outside the alphabet', () => {
    expect(smsSegments('a'.repeat(69) + 'ë')).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSegments('a'.repeat(70) + 'ë')).toEqual({ encoding: 'UCS-2', units: 71, segments: 2 });
    expect(smsSegments('ü'.repeat(134) + 'ë').segments).toBe(3);
    expect(smsSegments('こんにちは').encoding).toBe('UCS-2');
    expect(smsSegments('こ'.repeat(134)).segments).toBe(2);
  });

  it('counts an emoji as a surrogate pair and never splits the pair', () => {
    expect(smsSegments('🎁')).toEqual({ encoding: 'UCS-2', units: 2, segments: 1 });
    expect(smsSegments('a'.repeat(68) + '🎁')).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    // 66 units, then a pair that would straddle the 67-unit boundary: it opens part two.
    expect(smsSegments('a'.repeat(66) + '🎁' + 'a'.repeat(65)).segments).toBe(2);
    expect(smsSegments('a'.repeat(66) + '🎁' + 'a'.repeat(66)).segments).toBe(3);
  });

  it('costs nothing for an empty text', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', units: 0, segments: 0 });
  });
});
