import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

export const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe's serious and critical findings on the page at `url`, as readable lines, for phone and desktop. */
export async function seriousViolations(browser: Browser, url: string): Promise<string[]> {
  const found: string[] = [];
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    // The pages' CSP allows only their own nonce-bearing scripts; axe is the test's, not the page's.
    const context = await browser.newContext({ bypassCSP: true, viewport });
    const page: Page = await context.newPage();
    try {
      const response = await page.goto(url);
      expect(response?.ok(), url).toBe(true);
      // The page as it settles: a fade-in still running reads as low contrast (its opacity), and
      // whether axe ran before it ended depended on the machine's load.
      await page.evaluate('Promise.all(document.getAnimations().map((animation) => animation.finished))');
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: (options: object) => Promise<{ violations: unknown[] }> } })
          .axe;
        const result = await axe.run({ resultTypes: ['violations'] });
        return result.violations;
      });
      for (const violation of violations as AxeViolation[])
        if (violation.impact === 'serious' || violation.impact === 'critical')
          found.push(
            `${viewport.width}px ${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes.map((n) => n.target.join(' ')).join(', ')}`,
          );
    } finally {
      await context.close();
    }
  }
  return found;
}
