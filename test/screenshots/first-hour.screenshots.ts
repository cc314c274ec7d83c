import path from 'node:path';
import { expect, it } from 'vitest';
import { startFirstHourWorld, walkFirstHour } from '../shopify/first-hour.ts';
import { forFile } from '../support/for-file.ts';
import { projectRoot } from '../support/processes.ts';

/** A merchant's first hour, pictured for docs/shopify.md (`npm run screenshots`): the same walk as test/shopify/first-hour.test.ts. */
let world: Awaited<ReturnType<typeof startFirstHourWorld>>;
forFile(
  startFirstHourWorld,
  (started) => (world = started),
  (started) => started.close(),
);

it('install, setup guide, test gift, watch page', async () => {
  const { problems } = await walkFirstHour(
    world.browser,
    world.app,
    'doorstep-demo.myshopify.com',
    async (name, page) => {
      await page.setViewportSize({ width: 1100, height: 760 });
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
      await page.screenshot({ path: path.join(projectRoot, 'docs', 'screenshots', `${name}.png`), fullPage: false });
    },
  );
  expect(problems).toEqual([]);
}, 180_000);
