import { COLORS, RADIUS, SPACE, TYPE, accentText, onAccent, resolvedBrand, type Brand } from './tokens.ts';

/**
 * The one stylesheet of every page a shopper or a recipient sees (record, watch, thank-you, and the
 * pages about no order): the tokens as custom properties, the store's accent and font among them,
 * then the components. Inlined in each page under its CSP nonce: one request fewer on a phone, and
 * the store's colours need no stylesheet of their own.
 */
export function pageStylesheet(brand?: Partial<Brand>): string {
  const { accent, font } = resolvedBrand(brand);
  return `:root {
  --ink: ${COLORS.ink}; --ink-muted: ${COLORS.inkMuted}; --paper: ${COLORS.paper}; --surface: ${COLORS.surface};
  --line: ${COLORS.line}; --stage: ${COLORS.stage}; --success: ${COLORS.success}; --danger: ${COLORS.danger};
  --focus: ${COLORS.focus};
  --accent: ${accent}; --on-accent: ${onAccent(accent)}; --accent-text: ${accentText(accent)};
  --font: ${font};
  --text-small: ${TYPE.small}; --text-body: ${TYPE.body}; --text-lead: ${TYPE.lead}; --text-h2: ${TYPE.h2}; --text-h1: ${TYPE.h1};
  --space-xs: ${SPACE.xs}; --space-sm: ${SPACE.sm}; --space-md: ${SPACE.md}; --space-lg: ${SPACE.lg}; --space-xl: ${SPACE.xl};
  --radius-sm: ${RADIUS.sm}; --radius-md: ${RADIUS.md}; --radius-lg: ${RADIUS.lg}; --radius-pill: ${RADIUS.pill};
  color-scheme: light;
}
${COMPONENTS}`;
}

/** Everything but the tokens: written once, in terms of them. */
const COMPONENTS = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--paper); color: var(--ink); font: var(--text-body)/1.55 var(--font); overflow-wrap: break-word; }
main { width: 100%; max-width: 40rem; margin: 0 auto; padding: var(--space-md) var(--space-md) var(--space-xl); }
h1 { font-size: var(--text-h1); line-height: 1.2; letter-spacing: -0.01em; margin: var(--space-md) 0 var(--space-sm); }
h2 { font-size: var(--text-h2); line-height: 1.3; margin: 0 0 var(--space-sm); }
p { margin: 0 0 var(--space-md); }
a { color: var(--accent-text); text-underline-offset: 0.15em; }
.muted { color: var(--ink-muted); }
.lead { font-size: var(--text-lead); }
.card { background: var(--surface); border-radius: var(--radius-lg); padding: var(--space-lg); margin: var(--space-md) 0; box-shadow: 0 1px 2px rgb(43 33 24 / 6%), 0 10px 30px rgb(43 33 24 / 8%); }
header.store { display: flex; align-items: center; justify-content: center; gap: var(--space-sm); padding: var(--space-sm) 0 var(--space-md); }
.store-name { margin: 0; font-weight: 700; letter-spacing: 0.04em; font-size: var(--text-small); text-transform: uppercase; color: var(--ink-muted); }
.store-logo { max-height: 2.5rem; max-width: 9rem; }
.actions { display: flex; flex-wrap: wrap; gap: var(--space-sm); margin: var(--space-md) 0; }
button, .button, .file { font: inherit; font-weight: 600; min-height: 3rem; padding: 0.7rem 1.35rem; border-radius: var(--radius-pill); border: 2px solid var(--ink); background: var(--surface); color: var(--ink); cursor: pointer; display: inline-flex; align-items: center; justify-content: center; gap: var(--space-sm); text-align: center; text-decoration: none; position: relative; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
button.wide, .button.wide { width: 100%; }
button:disabled { opacity: 0.45; cursor: not-allowed; }
:focus-visible, .file:focus-within { outline: 3px solid var(--focus); outline-offset: 2px; }
.file input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; cursor: pointer; }
label { font-weight: 600; }
input, textarea { font: inherit; width: 100%; padding: 0.7rem 0.85rem; border: 1.5px solid var(--line); border-radius: var(--radius-sm); background: var(--surface); color: var(--ink); }
textarea { resize: vertical; min-height: 4.5rem; }
video { display: block; width: 100%; max-height: 70vh; background: var(--stage); border-radius: var(--radius-md); }
progress { width: 100%; height: 0.75rem; accent-color: var(--accent); }
.status { font-weight: 600; min-height: 1.5em; }
.status.error { color: var(--danger); }
.status.ok { color: var(--success); }
.timer { font-variant-numeric: tabular-nums; font-size: var(--text-lead); font-weight: 700; margin: var(--space-xs) 0; }
.timer.ending { color: var(--danger); }
.countdown { position: absolute; inset: 0; display: grid; place-items: center; font-size: 5rem; font-weight: 800; color: #fff; text-shadow: 0 2px 12px rgb(0 0 0 / 60%); pointer-events: none; }
form#recipient, #transcript-field, form#thanks-note { display: grid; gap: var(--space-xs); margin: var(--space-sm) 0 var(--space-md); }
blockquote.note { margin: var(--space-md) 0; padding: var(--space-md) var(--space-lg); border-left: 4px solid var(--accent); background: var(--surface); border-radius: 0 var(--radius-md) var(--radius-md) 0; white-space: pre-line; font-size: var(--text-lead); font-style: italic; }
section.thanks { margin-top: var(--space-xl); }
.recorder-stage { position: relative; }
.links { display: grid; gap: var(--space-sm); }

/* The watch page's reveal: the poster fills the stage, one large play button on it. */
.stage { position: relative; margin: var(--space-md) calc(-1 * var(--space-md)); background: var(--stage); aspect-ratio: 4 / 5; max-height: 78vh; overflow: hidden; }
.stage video, .stage .poster { position: absolute; inset: 0; width: 100%; height: 100%; max-height: none; object-fit: contain; border-radius: 0; }
.stage .play { display: grid; place-items: center; position: absolute; left: 50%; top: 50%; transform: translate(-50%, -50%); width: 5.5rem; height: 5.5rem; min-height: 0; padding: 0; border-radius: 50%; border: 0; background: var(--accent); color: var(--on-accent); box-shadow: 0 6px 24px rgb(0 0 0 / 35%); }
.stage .poster { cursor: pointer; background: var(--stage); }
.stage .play svg { width: 2.4rem; height: 2.4rem; margin-left: 0.3rem; }
.stage .play:hover { transform: translate(-50%, -50%) scale(1.05); }
.stage.started .poster, .stage.started .play { display: none; }
@media (min-width: 42rem) { .stage { margin: var(--space-md) 0; border-radius: var(--radius-lg); } }
.from { font-size: var(--text-lead); margin-bottom: var(--space-xs); }
.title { font-size: var(--text-h1); font-weight: 700; line-height: 1.2; margin: 0 0 var(--space-sm); }
/* A phone upright: the stage is the screen's width and at most 62% of its height (a long title above it
   on a small phone left the play button below the fold), and a long title takes fewer lines. */
@media (max-width: 42rem) { .stage { aspect-ratio: auto; height: min(125vw, 78vh); height: min(125vw, 78vh, 62svh); max-height: none; } }
@media (max-width: 24rem) { .title { font-size: 1.5rem; } }
/* A phone held sideways (about 340 px high): the words on the left, the stage on the right at the
   screen's height, so the poster and its play button are on the first screen (recipient probe: the
   button was below the fold). */
@media (orientation: landscape) and (max-height: 30rem) { main:has(> .stage) { max-width: 60rem; display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); column-gap: var(--space-md); align-items: start; } main:has(> .stage) > * { grid-column: 1; } main:has(> .stage) .title { font-size: 1.35rem; } main:has(> .stage) > .stage { grid-column: 2; grid-row: 1 / span 20; height: calc(100vh - 2 * var(--space-md)); height: calc(100svh - 2 * var(--space-md)); aspect-ratio: auto; max-height: none; margin: 0; border-radius: var(--radius-lg); } }
footer.quiet { margin-top: var(--space-xl); text-align: center; font-size: var(--text-small); color: var(--ink-muted); }
@media (prefers-reduced-motion: no-preference) { .reveal-in { animation: reveal-in 0.5s ease-out both; } @keyframes reveal-in { from { opacity: 0; transform: translateY(0.75rem); } to { opacity: 1; transform: none; } } }
/* The recorder, one screen per state: an element shows only in the states its data-show names. */
${['before', 'camera', 'recording', 'preview', 'uploading', 'processing', 'sent']
  .map((state) => `.recorder[data-state="${state}"] [data-show]:not([data-show~="${state}"])`)
  .join(',\n')} { display: none !important; }
.recorder:is([data-state="processing"], [data-state="sent"]) .outcome { text-align: center; padding: var(--space-xl) var(--space-lg); background: var(--surface); border-radius: var(--radius-lg); box-shadow: 0 10px 30px rgb(43 33 24 / 8%); }
.recorder:is([data-state="processing"], [data-state="sent"]) .status { font-size: var(--text-lead); font-weight: 500; color: var(--ink); }
.outcome:focus { outline: none; }
.outcome .spinner { width: 3.5rem; height: 3.5rem; margin: 0 auto var(--space-md); border-radius: 50%; border: 0.35rem solid var(--line); border-top-color: var(--accent); }
@media (prefers-reduced-motion: no-preference) { .outcome .spinner { animation: spin 1s linear infinite; } @keyframes spin { to { transform: rotate(360deg); } } }
.outcome .mark { width: 4rem; height: 4rem; margin: 0 auto var(--space-md); border-radius: 50%; display: grid; place-items: center; background: var(--accent); color: var(--on-accent); font-size: 2rem; }
[hidden] { display: none !important; }
`;
