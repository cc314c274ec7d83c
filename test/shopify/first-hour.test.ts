import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFirstHourWorld, walkFirstHour } from './first-hour.ts';

/** Issue 28: a new merchant, from the front page's Install form to a test gift on the watch page. */
let world: Awaited<ReturnType<typeof startFirstHourWorld>>;
beforeAll(async () => {
  world = await startFirstHourWorld();
});
afterAll(async () => {
  await world?.close();
});

it('walks from install to a test gift: install page, setup guide, theme editor, test gift, e-mail, watch page', async () => {
  const { problems } = await walkFirstHour(world.browser, world.app, `first-hour-${Date.now()}.myshopify.com`);
  expect(problems).toEqual([]);
}, 180_000);
