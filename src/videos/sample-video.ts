/**
 * A minimal, valid, classic (non-fragmented) MP4 with one video track of the given length: what
 * `shopify simulate` uploads as the shopper's recording, and what tests use as a known duration.
 */
function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function timed(timescale: number, duration: number, extra: number): Buffer {
  const payload = Buffer.alloc(20 + extra);
  payload.writeUInt32BE(timescale, 12);
  payload.writeUInt32BE(duration, 16);
  return payload;
}

export function progressiveVideo(seconds: number, handler: 'vide' | 'soun' = 'vide'): { buffer: Buffer } {
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(1, 12);
  const hdlr = Buffer.alloc(25);
  hdlr.write(handler, 8, 'latin1');
  const buffer = Buffer.concat([
    box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')),
    box(
      'moov',
      box('mvhd', timed(1000, Math.round(seconds * 1000), 80)),
      box(
        'trak',
        box('tkhd', tkhd),
        box('mdia', box('mdhd', timed(90000, Math.round(seconds * 90000), 4)), box('hdlr', hdlr)),
      ),
    ),
    box('mdat', Buffer.alloc(64)),
  ]);
  return { buffer };
}
