import fs from 'node:fs';
import { parseFile } from 'music-metadata';

/**
 * Reads a video's real duration from its container — no ffmpeg, no trusting the uploader.
 *
 * music-metadata is an audio-first library: it takes an MP4's duration from the first *audio*
 * track only (a video-only MP4 has none, and for a fragmented MP4 it reports the first fragment —
 * 0.01 s for a 2 s recording from Chromium's MediaRecorder), and it throws on a WebM whose Segment
 * has unknown size, which is what MediaRecorder always writes (it streams, so it never goes back
 * to write a Duration). So the two containers we accept are read here, by walking their boxes
 * (ISO BMFF: MP4 / QuickTime) or elements (Matroska / WebM), and music-metadata is the second
 * opinion for a file whose structure holds no duration we can compute.
 */
export type ContainerKind = 'isobmff' | 'matroska';

export interface ContainerFacts {
  container: ContainerKind;
  hasVideo: boolean;
  /** Seconds, or null when the container does not say. */
  durationSeconds: number | null;
}

/** The bytes are not a video we can play back; `reason` is for people (the order's timeline). */
export class UnreadableVideoError extends Error {
  override name = 'UnreadableVideoError';
}

export async function readVideoDuration(
  filePath: string,
): Promise<{ durationTenths: number; container: ContainerKind }> {
  const facts = await readContainer(filePath);
  if (!facts.hasVideo) throw new UnreadableVideoError('The file has no video track.');
  let seconds = facts.durationSeconds;
  if (seconds === null || !(seconds > 0)) seconds = await musicMetadataDuration(filePath);
  if (seconds === null || !Number.isFinite(seconds) || !(seconds > 0))
    throw new UnreadableVideoError('The video has no duration (it may be empty or cut off).');
  // A video shorter than a tenth still exists: "0" means "not processed" in the API.
  return { durationTenths: Math.max(1, Math.round(seconds * 10)), container: facts.container };
}

async function musicMetadataDuration(filePath: string): Promise<number | null> {
  try {
    const metadata = await parseFile(filePath, { duration: true, skipCovers: true });
    return metadata.format.duration ?? null;
  } catch {
    return null;
  }
}

export async function readContainer(filePath: string): Promise<ContainerFacts> {
  const file = await RandomAccessFile.open(filePath);
  try {
    const head = await file.read(0, 12);
    if (head.length >= 4 && head.readUInt32BE(0) === EBML_HEADER) return await readMatroska(file);
    if (head.length >= 8 && ISOBMFF_FIRST_BOXES.has(head.toString('latin1', 4, 8))) return await readIsoBmff(file);
    throw new UnreadableVideoError('The file is not an MP4, QuickTime or WebM video.');
  } catch (error) {
    if (error instanceof UnreadableVideoError) throw error;
    // A structure that does not add up (a size past the end, a truncated header) is a corrupt file.
    throw new UnreadableVideoError(`The video file is damaged (${(error as Error).message}).`);
  } finally {
    await file.close();
  }
}

class RandomAccessFile {
  private constructor(
    private readonly handle: fs.promises.FileHandle,
    readonly size: number,
  ) {}

  static async open(filePath: string): Promise<RandomAccessFile> {
    const handle = await fs.promises.open(filePath, 'r');
    return new RandomAccessFile(handle, (await handle.stat()).size);
  }

  /** Up to `length` bytes at `position` (fewer at the end of the file). */
  async read(position: number, length: number): Promise<Buffer> {
    const wanted = Math.max(0, Math.min(length, this.size - position));
    const buffer = Buffer.alloc(wanted);
    if (wanted === 0) return buffer;
    const { bytesRead } = await this.handle.read(buffer, 0, wanted, position);
    return buffer.subarray(0, bytesRead);
  }

  async readExactly(position: number, length: number): Promise<Buffer> {
    const buffer = await this.read(position, length);
    if (buffer.length !== length) throw new Error(`unexpected end of file at byte ${position}`);
    return buffer;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

// ---------------------------------------------------------------------------------------------
// ISO BMFF (ISO/IEC 14496-12: MP4, and QuickTime, whose atoms it descends from)
// ---------------------------------------------------------------------------------------------

/** Box types a real file starts with; QuickTime files may lack `ftyp`. */
const ISOBMFF_FIRST_BOXES = new Set(['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
const ISOBMFF_CONTAINERS = new Set(['moov', 'trak', 'mdia', 'mvex', 'moof', 'traf']);
/** Sample tables can be large; anything bigger than this in one leaf box we need is not a phone video. */
const MAX_LEAF_BYTES = 64 * 1024 * 1024;

interface IsoTrack {
  timescale: number;
  mediaDuration: number;
  handler: string | null;
  /** End of the last fragment, in the track's timescale (fragmented files). */
  fragmentedEnd: number;
}

async function readIsoBmff(file: RandomAccessFile): Promise<ContainerFacts> {
  const tracks = new Map<number, IsoTrack>();
  let movie = { timescale: 0, duration: 0 };
  let fragmentDuration = 0;
  let currentTrackId = 0;
  // Fragment state: the traf being read.
  let fragment = { trackId: 0, defaultDuration: 0, decodeTime: null as number | null };
  let sawMoov = false;

  const track = (id: number): IsoTrack => {
    let found = tracks.get(id);
    if (!found) tracks.set(id, (found = { timescale: 0, mediaDuration: 0, handler: null, fragmentedEnd: 0 }));
    return found;
  };

  const walk = async (start: number, end: number, parent: string | null): Promise<void> => {
    let position = start;
    while (position + 8 <= end) {
      const header = await file.readExactly(position, 8);
      let size = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      let headerSize = 8;
      if (size === 1) {
        size = Number((await file.readExactly(position + 8, 8)).readBigUInt64BE(0));
        headerSize = 16;
      } else if (size === 0) {
        size = end - position; // to the end of the enclosing box / file
      }
      if (size < headerSize || position + size > end) {
        // A truncated final mdat (an upload cut short) is common; anything else means garbage.
        if (parent === null && type === 'mdat') break;
        throw new Error(`box "${printable(type)}" at byte ${position} does not fit`);
      }
      const payloadStart = position + headerSize;
      const payloadSize = size - headerSize;
      if (ISOBMFF_CONTAINERS.has(type)) {
        if (type === 'moov') sawMoov = true;
        if (type === 'trak') currentTrackId = 0;
        if (type === 'traf') fragment = { trackId: 0, defaultDuration: 0, decodeTime: null };
        await walk(payloadStart, payloadStart + payloadSize, type);
      } else if (['mvhd', 'tkhd', 'mdhd', 'hdlr', 'mehd', 'tfhd', 'tfdt', 'trun', 'trex'].includes(type)) {
        if (payloadSize > MAX_LEAF_BYTES) throw new Error(`box "${type}" is implausibly large`);
        const box = await file.readExactly(payloadStart, payloadSize);
        const version = box.readUInt8(0);
        const flags = box.readUIntBE(1, 3);
        switch (type) {
          case 'mvhd':
            movie =
              version === 1
                ? { timescale: box.readUInt32BE(20), duration: Number(box.readBigUInt64BE(24)) }
                : { timescale: box.readUInt32BE(12), duration: box.readUInt32BE(16) };
            break;
          case 'tkhd':
            currentTrackId = box.readUInt32BE(version === 1 ? 20 : 12);
            break;
          case 'mdhd': {
            const t = track(currentTrackId);
            t.timescale = box.readUInt32BE(version === 1 ? 20 : 12);
            t.mediaDuration = version === 1 ? Number(box.readBigUInt64BE(24)) : box.readUInt32BE(16);
            break;
          }
          case 'hdlr':
            if (parent === 'mdia') track(currentTrackId).handler = box.toString('latin1', 8, 12);
            break;
          case 'mehd':
            fragmentDuration = version === 1 ? Number(box.readBigUInt64BE(4)) : box.readUInt32BE(4);
            break;
          case 'trex':
            // Defaults for fragments: trex is [vf][track_ID][desc index][default_sample_duration]…
            defaultDurations.set(box.readUInt32BE(4), box.readUInt32BE(12));
            break;
          case 'tfhd': {
            fragment.trackId = box.readUInt32BE(4);
            let offset = 8;
            if (flags & 0x01) offset += 8; // base-data-offset
            if (flags & 0x02) offset += 4; // sample-description-index
            fragment.defaultDuration =
              flags & 0x08 ? box.readUInt32BE(offset) : (defaultDurations.get(fragment.trackId) ?? 0);
            break;
          }
          case 'tfdt':
            fragment.decodeTime = version === 1 ? Number(box.readBigUInt64BE(4)) : box.readUInt32BE(4);
            break;
          case 'trun': {
            const count = box.readUInt32BE(4);
            let offset = 8;
            if (flags & 0x01) offset += 4; // data-offset
            if (flags & 0x04) offset += 4; // first-sample-flags
            const perSample = [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length * 4;
            if (offset + count * perSample > box.length) throw new Error('trun box is shorter than its sample count');
            let total = 0;
            for (let i = 0; i < count; i++)
              total += flags & 0x100 ? box.readUInt32BE(offset + i * perSample) : fragment.defaultDuration;
            const t = track(fragment.trackId);
            const start = fragment.decodeTime ?? t.fragmentedEnd;
            t.fragmentedEnd = Math.max(t.fragmentedEnd, start + total);
            fragment.decodeTime = start + total;
            break;
          }
        }
      }
      position += size;
    }
  };
  const defaultDurations = new Map<number, number>();
  await walk(0, file.size, null);
  if (!sawMoov) throw new UnreadableVideoError('The MP4/QuickTime file has no movie header (moov); it may be cut off.');

  const all = [...tracks.values()];
  const media = all.filter((t) => t.handler === 'vide' || t.handler === 'soun');
  const seconds = (value: number, timescale: number) => (timescale > 0 && value > 0 ? value / timescale : 0);
  // Fragmented (what MediaRecorder writes): the header durations are 0; the fragments are the truth.
  const fragmented = Math.max(0, ...media.map((t) => seconds(t.fragmentedEnd, t.timescale)));
  const header = seconds(movie.duration === 0xffffffff ? 0 : movie.duration, movie.timescale);
  const declaredFragments = seconds(fragmentDuration, movie.timescale);
  const perTrack = Math.max(0, ...media.map((t) => seconds(t.mediaDuration, t.timescale)));
  const duration = fragmented || header || declaredFragments || perTrack;
  return {
    container: 'isobmff',
    hasVideo: all.some((t) => t.handler === 'vide'),
    durationSeconds: duration > 0 ? duration : null,
  };
}

function printable(type: string): string {
  return /^[\x20-\x7e]{4}$/.test(type) ? type : '????';
}

// ---------------------------------------------------------------------------------------------
// Matroska / WebM (RFC 9559)
// ---------------------------------------------------------------------------------------------

const EBML_HEADER = 0x1a45dfa3;
const ID = {
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  cluster: 0x1f43b675,
  timestamp: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
} as const;
/** Master elements we step into rather than over. Segment and Cluster may have unknown size (live recording). */
const MATROSKA_DESCEND = new Set<number>([
  EBML_HEADER,
  ID.segment,
  ID.info,
  ID.tracks,
  ID.trackEntry,
  ID.cluster,
  ID.blockGroup,
]);
const UNKNOWN_SIZE_ALLOWED = new Set<number>([ID.segment, ID.cluster]);

/**
 * A flat walk over the elements: masters we care about are entered (so an unknown-size Segment or
 * Cluster simply continues until the next one), everything else is skipped by its size. With no
 * Duration in Info, the duration is the span of the block timestamps (plus the last BlockDuration).
 */
async function readMatroska(file: RandomAccessFile): Promise<ContainerFacts> {
  let docType: string | null = null;
  let timestampScale = 1_000_000; // nanoseconds per tick; the default per RFC 9559
  let declared: number | null = null;
  let hasVideo = false;
  let clusterTimestamp = 0;
  let first = Number.POSITIVE_INFINITY;
  let lastEnd = Number.NEGATIVE_INFINITY;
  let lastBlock = 0;
  let blocks = 0;

  let position = 0;
  while (position < file.size) {
    const header = await file.read(position, 12);
    if (header.length === 0) break;
    const id = readVint(header, 0, true);
    if (!id || id.length > 4) throw new Error(`invalid element id at byte ${position}`);
    const size = readVint(header, id.length, false);
    if (!size) {
      // A cut-off final element: keep what was read before it.
      if (header.length < 12 && blocks > 0) break;
      throw new Error(`invalid element size at byte ${position}`);
    }
    const dataStart = position + id.length + size.length;
    if (size.unknown && !UNKNOWN_SIZE_ALLOWED.has(id.value))
      throw new Error(`element 0x${id.value.toString(16)} has unknown size`);
    if (position === 0 && id.value !== EBML_HEADER) throw new Error('no EBML header');

    if (MATROSKA_DESCEND.has(id.value)) {
      position = dataStart;
      continue;
    }
    const inFile = dataStart + size.value <= file.size;
    switch (id.value) {
      case ID.docType:
        docType = (await file.readExactly(dataStart, size.value)).toString('latin1').replace(/\0+$/, '');
        break;
      case ID.timestampScale:
        timestampScale = readUnsigned(await file.readExactly(dataStart, size.value));
        break;
      case ID.duration: {
        const bytes = await file.readExactly(dataStart, size.value);
        declared = size.value === 4 ? bytes.readFloatBE(0) : size.value === 8 ? bytes.readDoubleBE(0) : null;
        break;
      }
      case ID.trackType:
        if (readUnsigned(await file.readExactly(dataStart, size.value)) === 1) hasVideo = true;
        break;
      case ID.timestamp:
        clusterTimestamp = readUnsigned(await file.readExactly(dataStart, size.value));
        break;
      case ID.simpleBlock:
      case ID.block: {
        if (!inFile) break; // the last block of a cut-off file
        const blockHeader = await file.readExactly(dataStart, Math.min(size.value, 12));
        const track = readVint(blockHeader, 0, false);
        if (!track || blockHeader.length < track.length + 2) throw new Error(`invalid block at byte ${dataStart}`);
        const at = clusterTimestamp + blockHeader.readInt16BE(track.length);
        first = Math.min(first, at);
        lastBlock = at;
        lastEnd = Math.max(lastEnd, at);
        blocks++;
        break;
      }
      case ID.blockDuration:
        lastEnd = Math.max(lastEnd, lastBlock + readUnsigned(await file.readExactly(dataStart, size.value)));
        break;
    }
    if (!inFile && blocks === 0 && declared === null)
      throw new Error(`element at byte ${position} runs past the end of the file`);
    position = dataStart + size.value;
  }
  if (docType !== 'webm' && docType !== 'matroska')
    throw new UnreadableVideoError('The file is an EBML document but not a WebM/Matroska video.');
  const fromBlocks = blocks > 0 ? ((lastEnd - first) * timestampScale) / 1e9 : 0;
  const fromInfo = declared !== null ? (declared * timestampScale) / 1e9 : 0;
  const duration = fromInfo > 0 ? fromInfo : fromBlocks;
  return { container: 'matroska', hasVideo, durationSeconds: duration > 0 ? duration : null };
}

/** An EBML variable-length integer. Ids keep their length marker; sizes drop it (all ones = unknown). */
function readVint(
  buffer: Buffer,
  offset: number,
  keepMarker: boolean,
): { value: number; length: number; unknown: boolean } | null {
  const firstByte = buffer[offset];
  if (firstByte === undefined || firstByte === 0) return null;
  const length = Math.clz32(firstByte) - 23;
  if (offset + length > buffer.length) return null;
  let value = keepMarker ? firstByte : firstByte & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = buffer[offset + i]!;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function readUnsigned(bytes: Buffer): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}
