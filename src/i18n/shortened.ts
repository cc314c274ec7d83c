/** Grapheme clusters as a reader sees them: an emoji family, a flag or an accented letter is one. */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` cut to at most `max` UTF-16 units (the unit our text limits count) with an ellipsis, between
 * two graphemes: a cut inside a surrogate pair left a lone half that reached the recipient as U+FFFD,
 * and a cut inside a cluster left half a family emoji or a letter without its accent (fields probe).
 * Text within the limit is returned as it is.
 */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 1) return '';
  const room = max - 1; // the ellipsis
  let kept = '';
  for (const { segment } of graphemes.segment(text)) {
    if (kept.length + segment.length > room) break;
    kept += segment;
  }
  return `${kept.trimEnd()}…`;
}
