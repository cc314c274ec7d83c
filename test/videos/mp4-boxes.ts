import fs from 'node:fs';

/** The top-level boxes of an MP4, in file order: `moov` before `mdat` is what "faststart" means. */
export function topLevelBoxes(file: string): string[] {
  const data = fs.readFileSync(file);
  const boxes: string[] = [];
  for (let at = 0; at + 8 <= data.length;) {
    const size = data.readUInt32BE(at);
    boxes.push(data.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}
