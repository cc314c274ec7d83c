import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

const extensionDir = fileURLToPath(new URL('../../../extensions/record-video-link/', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(extensionDir, file), 'utf8');

interface ExtensionToml {
  api_version?: unknown;
  extensions?: Array<{
    name?: unknown;
    handle?: unknown;
    type?: unknown;
    targeting?: Array<{ target?: unknown; module?: unknown }>;
    capabilities?: { network_access?: unknown };
  }>;
}

describe('extensions/record-video-link/shopify.extension.toml', () => {
  const config = parse(read('shopify.extension.toml')) as ExtensionToml;
  const extension = config.extensions?.[0];

  it('is one ui_extension on API 2026-07 with a handle Shopify CLI accepts', () => {
    expect(config.api_version).toBe('2026-07');
    expect(config.extensions).toHaveLength(1);
    expect(extension).toMatchObject({ type: 'ui_extension', handle: 'record-video-link' });
    expect(typeof extension?.name).toBe('string');
    // Shopify CLI's HandleSchema: alphanumerics and hyphens, at most 50, no hyphen at either end.
    expect(extension?.handle).toMatch(/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,48}[a-zA-Z0-9])?$/);
  });

  it('renders on the thank-you page and on the order-status page, each from a module that exists', () => {
    const targeting = extension?.targeting ?? [];
    expect(targeting.map((entry) => entry.target).sort()).toEqual([
      'customer-account.order-status.block.render',
      'purchase.thank-you.block.render',
    ]);
    for (const entry of targeting) {
      expect(typeof entry.module).toBe('string');
      expect(fs.existsSync(path.join(extensionDir, entry.module as string)), String(entry.module)).toBe(true);
    }
  });

  it('asks for network access (the extension fetches from the Doorstep server)', () => {
    expect(extension?.capabilities?.network_access).toBe(true);
  });

  it("names the installed @shopify/ui-extensions (the API version's release) and Preact in its package.json", () => {
    const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@preact/signals', '@shopify/ui-extensions', 'preact']);
    const installed = JSON.parse(
      fs.readFileSync(path.join(extensionDir, '../../node_modules/@shopify/ui-extensions/package.json'), 'utf8'),
    ) as { version: string };
    // 2026-07 ↔ 2026.7.x
    expect(manifest.dependencies['@shopify/ui-extensions']).toBe('2026.7.x');
    expect(installed.version).toMatch(/^2026\.7\./);
  });

  it('has an English text for every key the sources translate', () => {
    const locale = JSON.parse(read('locales/en.default.json')) as Record<string, string>;
    const used = new Set<string>();
    for (const file of fs.readdirSync(path.join(extensionDir, 'src'))) {
      for (const match of read(`src/${file}`).matchAll(/translate\('([A-Za-z0-9_.]+)'/g)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(3);
    expect([...used].filter((key) => !(key in locale))).toEqual([]);
  });
});
