import { describe, expect, it } from 'vitest';
import { pageStylesheet } from '../../src/design/page-style.ts';
import { COLORS, DEFAULT_ACCENT, FONT_STACKS, accentText, contrast, onAccent } from '../../src/design/tokens.ts';

/** Issue 29: the design tokens, and the store's brand never making a page unreadable. */
describe('the design tokens', () => {
  it('measure contrast as WCAG 2 does', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#ffffff', '#ffffff')).toBe(1);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('text on the default palette reads at AA or better', () => {
    expect(contrast(COLORS.ink, COLORS.paper)).toBeGreaterThanOrEqual(7);
    expect(contrast(COLORS.inkMuted, COLORS.paper)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(onAccent(DEFAULT_ACCENT), DEFAULT_ACCENT)).toBeGreaterThanOrEqual(4.5);
  });

  it('a pale accent gets dark text on its buttons, and is not used for text on the page', () => {
    const paleYellow = '#ffe27a';
    expect(onAccent(paleYellow)).toBe(COLORS.ink);
    expect(contrast(onAccent(paleYellow), paleYellow)).toBeGreaterThanOrEqual(4.5);
    expect(accentText(paleYellow)).toBe(COLORS.ink);
    const deepTeal = '#1a5e63';
    expect(onAccent(deepTeal)).toBe('#ffffff');
    expect(accentText(deepTeal)).toBe(deepTeal);
  });

  it("writes the store's accent and font into the stylesheet, and Doorstep's when it chose none", () => {
    const branded = pageStylesheet({ accentColor: '#1A5E63', font: 'classic' });
    expect(branded).toContain('--accent: #1a5e63; --on-accent: #ffffff;');
    expect(branded).toContain(`--font: ${FONT_STACKS.classic};`);
    const plain = pageStylesheet();
    expect(plain).toContain(`--accent: ${DEFAULT_ACCENT};`);
    expect(plain).toContain(`--font: ${FONT_STACKS.modern};`);
    // Something that is not a colour never reaches the CSS.
    expect(pageStylesheet({ accentColor: 'red;}body{display:none' })).toContain(`--accent: ${DEFAULT_ACCENT};`);
  });

  it('hides, in each state of the recorder, what that state does not name', () => {
    const css = pageStylesheet();
    for (const state of ['before', 'camera', 'recording', 'preview', 'uploading', 'processing', 'sent'])
      expect(css).toContain(`.recorder[data-state="${state}"] [data-show]:not([data-show~="${state}"])`);
  });
});
