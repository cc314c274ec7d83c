import { describe, expect, it } from 'vitest';
import { routeLabel } from '../../src/operations/http-metrics.ts';
import { carrierCallOutcome, webhookTopicLabel } from '../../src/operations/metrics.ts';
import { missingMigrations } from '../../src/operations/readiness.ts';
import { withoutExternalFonts } from '../../src/operations/routes.ts';

describe('carrierCallOutcome', () => {
  it.each([
    [200, 'ok'],
    [204, 'ok'],
    [404, 'not_found'],
    [400, 'client_error'],
    [401, 'client_error'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [503, 'server_error'],
    [null, 'unreachable'],
  ] as const)('%s → %s', (status, outcome) => {
    expect(carrierCallOutcome(status)).toBe(outcome);
  });
});

describe('webhookTopicLabel', () => {
  it("keeps Shopify's topics and folds anything else into `other` (bounded label values)", () => {
    expect(webhookTopicLabel('orders/create')).toBe('orders/create');
    expect(webhookTopicLabel('customers/data_request')).toBe('customers/data_request');
    expect(webhookTopicLabel('')).toBe('other');
    expect(webhookTopicLabel('orders/create/../../x')).toBe('other');
    expect(webhookTopicLabel(`orders/${'a'.repeat(200)}`)).toBe('other');
  });
});

describe('routeLabel', () => {
  const mounted = ['/sandbox', '/admin/queues'];
  it("is the router's pattern, never the raw path", () => {
    expect(
      routeLabel({ path: '/watch/0b6f7c1e-1111-4111-8111-111111111111', _matchedRoute: '/watch/:uuid' }, mounted),
    ).toBe('/watch/:uuid');
  });
  it('is the prefix for apps mounted whole, and `unmatched` when no route matched', () => {
    expect(routeLabel({ path: '/sandbox/ups/api/track/v1/details/1Z' }, mounted)).toBe('/sandbox');
    expect(routeLabel({ path: '/admin/queues/api/queues' }, mounted)).toBe('/admin/queues');
    expect(routeLabel({ path: '/admin/queuesx' }, mounted)).toBe('unmatched');
    expect(routeLabel({ path: '/record/0b6f7c1e-1111-4111-8111-111111111111/nope' }, mounted)).toBe('unmatched');
  });
});

describe('missingMigrations', () => {
  it('lists known migrations the database has not applied; extra applied ones (a newer build) are fine', () => {
    expect(missingMigrations(['001-a', '002-b'], ['001-a', '002-b'])).toEqual([]);
    expect(missingMigrations(['001-a', '002-b', '003-c'], ['001-a'])).toEqual(['002-b', '003-c']);
    expect(missingMigrations(['001-a'], ['001-a', '002-b'])).toEqual([]);
  });
});

describe('withoutExternalFonts', () => {
  it("drops bull-board's Google Fonts link and keeps its own stylesheet", () => {
    const html =
      '<title>x</title>\n    <link href="https://fonts.googleapis.com/css2?family=IBM+Plex+Sans&display=swap" rel="stylesheet">\n<link href="static/css/main.css" rel="stylesheet">';
    expect(withoutExternalFonts(html)).toBe('<title>x</title>\n    <link href="static/css/main.css" rel="stylesheet">');
  });
});
