/**
 * Shopify ids are 64-bit integers sent as JSON numbers; today's fit below 2^53 but nothing promises
 * that (docs/shopify-notes.md). `JSON.parse` would silently round a larger one, so ids are
 * taken from the source text instead (ES2025 JSON.parse source access, Node >= 21) and kept as strings:
 * any integer under a key named `id` / `*_id`, any integer in an array (`orders_to_redact`, …) and
 * any integer too large to be exact.
 */
type ReviverContext = { source?: string };

export function parseShopifyJson(text: string): unknown {
  const reviver = function (this: unknown, key: string, value: unknown, context?: ReviverContext): unknown {
    if (typeof value !== 'number' || context?.source === undefined || !/^-?\d+$/.test(context.source)) return value;
    const isIdKey = key === 'id' || key.endsWith('_id');
    const inArray = Array.isArray(this);
    return isIdKey || inArray || !Number.isSafeInteger(value) ? context.source : value;
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}
