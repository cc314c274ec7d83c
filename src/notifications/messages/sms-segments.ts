/**
 * How many SMS segments a text costs, per 3GPP TS 23.038 (the GSM 7-bit default alphabet) and
 * TS 23.040 (concatenation). A message that uses only the GSM-7 alphabet travels in 7-bit units:
 * 160 in one SMS, 153 per part once split (the concatenation header takes the rest). Characters of
 * the extension table (`^ { } \ [ ~ ] | €` and form feed) are an escape plus a unit, so count 2 and
 * are never split from their escape. A single character outside the alphabet (an emoji, most
 * non-Latin scripts, `ë`) switches the whole message to UCS-2: UTF-16 code units, 70 in one SMS,
 * 67 per part; an emoji outside the BMP is a surrogate pair (2 units), never split either.
 */

// The default alphabet, in table order (0x1B, the escape, is not a character of its own).
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** 7-bit units (GSM-7) or UTF-16 code units (UCS-2) the text takes. */
  units: number;
  segments: number;
}

const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

export function smsSegments(text: string): SmsSegments {
  const characters = Array.from(text); // code points: a surrogate pair stays one character
  const encoding: SmsEncoding = characters.every((c) => GSM7_BASIC.has(c) || GSM7_EXTENSION.has(c)) ? 'GSM-7' : 'UCS-2';
  const sizes = characters.map((c) => (encoding === 'GSM-7' ? (GSM7_EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = sizes.reduce((sum, size) => sum + size, 0);
  const { single, part } = LIMITS[encoding];
  if (units <= single) return { encoding, units, segments: units === 0 ? 0 : 1 };
  // Parts are filled in order; a 2-unit character that does not fit starts the next part.
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return { encoding, units, segments };
}

/**
 * Typographic punctuation a phone's keyboard types on its own (iOS "smart punctuation": O’Neil,
 * “Mum”, a dash) as the GSM-7 characters a text message reads the same with. One ’ in a name would
 * make the whole SMS UCS-2 and cost it twice (recipient probe); the letters of a name are never
 * changed, only these marks and the non-breaking spaces.
 */
const GSM7_LOOK_ALIKES: ReadonlyArray<[RegExp, string]> = [
  [/[\u2018\u2019\u201a\u201b\u2032]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033]/g, '"'],
  [/[\u2010-\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u00a0\u2007\u202f]/g, ' '],
];

export function withGsm7Punctuation(text: string): string {
  return GSM7_LOOK_ALIKES.reduce((result, [marks, plain]) => result.replace(marks, plain), text);
}
