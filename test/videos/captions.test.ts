import { describe, expect, it } from 'vitest';
import { captionCues, CUE_LINE_CHARS, escapeCueText, webVtt } from '../../src/videos/captions.ts';

/** Issue 14: the captions track the watch page builds from the sender's transcript. */
describe('captionCues', () => {
  it('makes one cue a sentence, spread over the video in proportion to their length', () => {
    // 11 + 33 characters over 8 s: 2 s and 6 s.
    const cues = captionCues('Hi Grandpa. It was a lovely day with you all.', 8);
    expect(cues).toEqual([
      { start: 0, end: 2, lines: ['Hi Grandpa.'] },
      { start: 2, end: 8, lines: ['It was a lovely day with you all.'] },
    ]);
  });

  it('covers the whole video without gaps or overlaps, ending exactly at its length', () => {
    const transcript =
      'Happy 80th birthday, Grandpa Joe! We wish we could be there with you today, but the sea is wide and the tickets are dear. ' +
      'Open the box carefully; it is fragile. Love from all of us — Ann, Tom, and little Sam, who chose the colour himself.';
    const cues = captionCues(transcript, 17.3);
    expect(cues.length).toBeGreaterThan(4);
    expect(cues[0]!.start).toBe(0);
    expect(cues.at(-1)!.end).toBe(17.3);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBe(cues[i - 1]!.end);
    for (const cue of cues) expect(cue.end).toBeGreaterThan(cue.start);
    // No word is lost or reordered.
    expect(cues.flatMap((cue) => cue.lines).join(' ')).toBe(transcript.replace(/\s+/g, ' ').trim());
  });

  it('keeps every cue to two lines of at most 40 characters, cut at clauses before words', () => {
    const cues = captionCues(
      'We picked this one together, after a long afternoon in town, because it reminded us of the summer at the lake',
      10,
    );
    for (const cue of cues) {
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      for (const line of cue.lines) expect(line.length).toBeLessThanOrEqual(CUE_LINE_CHARS);
    }
    // The first cut is at the comma, not in the middle of a clause.
    expect(cues[0]!.lines.join(' ')).toBe('We picked this one together, after a long afternoon in town,');
  });

  it('breaks a two-line cue where its lines are most even', () => {
    const [cue] = captionCues('We miss you very much and think of you every day', 3);
    expect(cue!.lines).toEqual(['We miss you very much and', 'think of you every day']);
  });

  it('cuts a clause with no punctuation at its words, and a word longer than a line into pieces', () => {
    const long = 'and then we went to the market and bought apples pears plums cherries grapes and a melon too';
    const url = `https://example.com/${'x'.repeat(60)}`;
    const cues = captionCues(`${long} ${url}`, 10);
    for (const cue of cues) for (const line of cue.lines) expect(line.length).toBeLessThanOrEqual(CUE_LINE_CHARS);
    expect(
      cues
        .flatMap((cue) => cue.lines)
        .join(' ')
        .replaceAll(' ', ''),
    ).toBe(`${long}${url}`.replaceAll(' ', ''));
  });

  it('keeps the lines the sender typed apart, and drops control characters and blank lines', () => {
    const cues = captionCues('Hello\n\n  there\u0000 friend \r\nBye', 3);
    expect(cues.map((cue) => cue.lines)).toEqual([['Hello'], ['there friend'], ['Bye']]);
  });

  it('keeps the joiners inside emoji and the direction marks, drops other format characters', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const cues = captionCues(`We love you ${family}\u2060 \u200Fשלום\u200E!`, 3);
    expect(cues.map((cue) => cue.lines.join(' '))).toEqual([`We love you ${family} \u200Fשלום\u200E!`]);
  });

  it('has no cues for an empty transcript, and paces itself when the length is unknown', () => {
    expect(captionCues(' \n ', 10)).toEqual([]);
    // 30 characters at 15 a second.
    expect(captionCues('abcdefghij abcdefghij abcdefgh', 0).at(-1)!.end).toBe(2);
    expect(captionCues('abcdefghij abcdefghij abcdefgh', Number.NaN).at(-1)!.end).toBe(2);
  });
});

describe('webVtt', () => {
  it('writes a WebVTT file with hh:mm:ss.ttt timings', () => {
    expect(
      webVtt([
        { start: 0, end: 1.6, lines: ['Hi Grandpa.'] },
        { start: 1.6, end: 3725.25, lines: ['It was a lovely day', 'with you all.'] },
      ]),
    ).toBe(
      'WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.600\nHi Grandpa.\n\n2\n00:00:01.600 --> 01:02:05.250\nIt was a lovely day\nwith you all.\n',
    );
  });

  it('escapes what cue text must not hold: & and < (tags), and the --> that ends timings', () => {
    expect(escapeCueText('Tom & Jerry <3 --> <b>x</b>')).toBe('Tom &amp; Jerry &lt;3 --&gt; &lt;b&gt;x&lt;/b&gt;');
    const vtt = webVtt(captionCues('A --> B & <c.red>C</c>', 2));
    expect(vtt).toContain('A --&gt; B &amp; &lt;c.red&gt;C&lt;/c&gt;');
    expect(vtt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(1);
  });
});
