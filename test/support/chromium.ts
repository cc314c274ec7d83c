import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { forFile } from './for-file.ts';

/** Debian's Chromium (postinstall installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and quiet: no first-run screens, no calls home (the tests run without internet). */
const QUIET_HEADLESS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches the real browser the page tests use. They must not skip silently: without Chromium they
 * fail and say what to install.
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`The browser tests need Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
  return chromium.launch({ executablePath: CHROMIUM, args: [...QUIET_HEADLESS, ...extraArgs] });
}

/** The file's browser: launched before its tests and closed after them; `use` receives it. */
export function chromiumForFile(use: (browser: Browser) => void, extraArgs: readonly string[] = []): void {
  forFile(
    () => launchChromium(extraArgs),
    use,
    (browser) => browser.close(),
  );
}

/**
 * A page that remembers what went wrong in it: a script error, or a CSP or integrity refusal (which
 * Chromium reports as console errors), so a flow driven through it also proves the page's script ran
 * clean. The pages name no icon, so Chromium's guess at /favicon.ico may 404: not the page's doing.
 */
export async function pageWatchingProblems(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico'))
      problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  return { page, problems };
}
