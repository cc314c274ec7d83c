import { expect, it } from 'vitest';
import { forFile } from '../support/for-file.ts';
import { startFirstHourWorld, walkFirstHour } from './first-hour.ts';

/** Issue 28: a new merchant, from the front page's Install form to a test gift on the watch page. */
let world: Awaited<ReturnType<typeof startFirstHourWorld>>;
forFile(
  startFirstHourWorld,
  (started) => (world = started),
  (started) => started.close(),
);

it('walks from install to a test gift: install page, setup guide, theme editor, plan approval, test gift, e-mail, watch page', async () => {
  const { problems } = await walkFirstHour(world.browser, world.app, `first-hour-${Date.now()}.myshopify.com`);
  expect(problems).toEqual([]);
}, 180_000);
