/**
 * Captions from a transcript (issue 14): the sender types what they say on the record page, and the
 * watch page's player shows it as a WebVTT captions track. We know the words and the video's length,
 * not when each word is spoken, so the transcript is cut into short cues at sentence and clause
 * boundaries and the cues share the video's length in proportion to their length in characters —
 * speech runs at a roughly even number of characters per second. Pure: no I/O, unit-tested.
 */

/** The transcript's limit, in UTF-16 code units like the textarea's `maxlength`: ~2 min of speech. */
export const TRANSCRIPT_MAX_CHARS = 2000;
/** Common caption guidance (BBC, Netflix): at most two lines of about 40 characters a cue. */
export const CUE_LINE_CHARS = 40;
/** When the video's length is unknown: an unhurried speaking pace, in characters a second. */
const SPEAKING_CHARS_PER_SECOND = 15;

export interface CaptionCue {
  /** Seconds from the start of the video. */
  start: number;
  end: number;
  /** One or two lines of plain text (escaped only when written as WebVTT). */
  lines: string[];
}

/**
 * The transcript's cues, spread over `durationSeconds` (the processed video's length; 0 or unknown
 * falls back to a speaking pace). An empty transcript has no cues.
 */
export function captionCues(transcript: string, durationSeconds: number): CaptionCue[] {
  const texts = cueTexts(transcript);
  const weights = texts.map((text) => text.length);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total === 0) return [];
  const duration =
    Number.isFinite(durationSeconds) && durationSeconds > 0 ? durationSeconds : total / SPEAKING_CHARS_PER_SECOND;
  const at = (chars: number) => Math.round((duration * chars * 1000) / total) / 1000;
  let before = 0;
  return texts.map((text, index) => {
    const start = at(before);
    before += weights[index]!;
    return { start, end: at(before), lines: cueLines(text) };
  });
}

/** The WebVTT file of these cues (https://www.w3.org/TR/webvtt1/). */
export function webVtt(cues: CaptionCue[]): string {
  const blocks = cues.map(
    (cue, index) =>
      `${index + 1}\n${timestamp(cue.start)} --> ${timestamp(cue.end)}\n${cue.lines.map(escapeCueText).join('\n')}\n`,
  );
  return ['WEBVTT\n', ...blocks].join('\n');
}

/**
 * Cue text is parsed for tags and character references: `&` and `<` must be escaped (WebVTT §4.2.2),
 * and escaping `>` too means the cue can never hold the `-->` that would end its timings.
 */
export function escapeCueText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** `hh:mm:ss.ttt`, the form every WebVTT reader accepts. */
function timestamp(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}

/**
 * Format characters that are part of the text, not noise: the zero-width (non-)joiners inside emoji
 * and many scripts' words, and the left-to-right / right-to-left marks.
 */
const KEPT_FORMAT_CHARS = new Set(['\u200C', '\u200D', '\u200E', '\u200F']);

/**
 * The transcript cut into cue-sized texts: each line the sender typed, then each sentence, stays
 * apart; a sentence too long for one cue is cut at its clauses (packed back together while they
 * fit), and a clause too long at its words.
 */
function cueTexts(transcript: string): string[] {
  return transcript
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (char) =>
      char === '\n' ? '\n' : KEPT_FORMAT_CHARS.has(char) ? char : ' ',
    )
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .flatMap((line) => line.split(/(?<=[.!?…]['"’”)\]]*)\s+/u))
    .flatMap((sentence) => (fitsInCue(sentence) ? [sentence] : pack(sentence.split(/(?<=[,;:—–])\s+/u))))
    .flatMap((clause) => (fitsInCue(clause) ? [clause] : pack(words(clause))));
}

/** Joins consecutive pieces while the result still fits in one cue. */
function pack(pieces: string[]): string[] {
  const out: string[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (last !== undefined && fitsInCue(`${last} ${piece}`)) out[out.length - 1] = `${last} ${piece}`;
    else out.push(piece);
  }
  return out;
}

/** The words of a text; a "word" longer than a line (a URL) is cut into line-long pieces. */
function words(text: string): string[] {
  return text.split(' ').flatMap((word) => word.match(new RegExp(`.{1,${CUE_LINE_CHARS}}`, 'gu')) ?? []);
}

function fitsInCue(text: string): boolean {
  return cueLines(text).length <= 2 && cueLines(text).every((line) => line.length <= CUE_LINE_CHARS);
}

/**
 * One line if the text fits on one, else two lines broken at the space that makes them most even
 * (a 45-character cue reads better as 23 + 21 than as 40 + 4). A text that fits on no two lines is
 * returned as its greedy wrap; `fitsInCue` says no to it.
 */
function cueLines(text: string): string[] {
  if (text.length <= CUE_LINE_CHARS) return [text];
  let best: [string, string] | undefined;
  for (let at = text.indexOf(' '); at !== -1; at = text.indexOf(' ', at + 1)) {
    const pair: [string, string] = [text.slice(0, at), text.slice(at + 1)];
    if (pair[0].length > CUE_LINE_CHARS || pair[1].length > CUE_LINE_CHARS) continue;
    if (!best || Math.max(...pair.map((l) => l.length)) < Math.max(...best.map((l) => l.length))) best = pair;
  }
  return best ?? greedyWrap(text);
}

function greedyWrap(text: string): string[] {
  const lines: string[] = [];
  for (const word of words(text)) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= CUE_LINE_CHARS)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}
