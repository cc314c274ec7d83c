import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { parse as parseToml } from 'smol-toml';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { BLOCK_FILE, EXTENSION_DIR, ROOT, blockSchema, locales } from './storefront.ts';
import {
  APP_BLOCK_SCRIPT_MAX_BYTES,
  BLOCK_ASSET,
  BLOCK_SOURCE,
  buildStorefrontBlock,
} from '../../src/shopify/storefront-block/build.ts';

/**
 * The extensions as the Shopify CLI reads them (`shopify app deploy` refuses what fails here), and the
 * storefront script held to the checks the rest of the code gets.
 */
const EXTENSIONS = path.join(ROOT, 'extensions');
/** The block's script as written; what Shopify serves is its build in assets/ (src/shopify/storefront-block/build.ts). */
const SCRIPT = BLOCK_SOURCE;

const extensionDirs = () =>
  fs
    .readdirSync(EXTENSIONS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(EXTENSIONS, entry.name));

describe('shopify.extension.toml', () => {
  it('parses in every extension and names each extension with its type', () => {
    const dirs = extensionDirs();
    expect(dirs).toContain(EXTENSION_DIR);
    for (const dir of dirs) {
      const config = parseToml(fs.readFileSync(path.join(dir, 'shopify.extension.toml'), 'utf8'));
      // Two shapes: a theme extension's flat `name` + `type`, or an `[[extensions]]` list.
      const declared = Array.isArray(config.extensions) ? (config.extensions as Record<string, unknown>[]) : [config];
      expect(declared.length, dir).toBeGreaterThan(0);
      for (const extension of declared) {
        expect(extension, dir).toMatchObject({ name: expect.any(String), type: expect.any(String) });
      }
    }
  });

  it('declares the video gift message as a theme extension', () => {
    const config = parseToml(fs.readFileSync(path.join(EXTENSION_DIR, 'shopify.extension.toml'), 'utf8'));
    expect(config).toEqual({ name: 'video-gift-message', type: 'theme' });
  });

  it('keeps to the files the CLI deploys for a theme extension (its directories and file types)', () => {
    // Shopify CLI's validateThemeExtension: only these folders, one level deep, with these file types.
    const allowed: Record<string, RegExp> = {
      assets: /\.(jpe?g|json|js|css|png|svg|wasm)$/,
      blocks: /\.liquid$/,
      locales: /\.json$/,
      snippets: /\.liquid$/,
    };
    for (const entry of fs.readdirSync(EXTENSION_DIR, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const pattern = allowed[entry.name];
      expect(pattern, `folder ${entry.name}`).toBeDefined();
      for (const file of fs.readdirSync(path.join(EXTENSION_DIR, entry.name))) expect(file).toMatch(pattern!);
    }
  });
});

describe('the app block', () => {
  const liquid = fs.readFileSync(BLOCK_FILE, 'utf8');
  const schema = blockSchema(liquid);

  it('has the schema a theme app block needs: a name, the section target, product and cart pages', () => {
    expect(schema).toMatchObject({
      name: 'Video gift message',
      target: 'section',
      enabled_on: { templates: ['product', 'cart'] },
    });
    // `templates` is the old key that enabled_on replaced; a schema takes one of the two.
    expect(schema).not.toHaveProperty('templates');
    for (const asset of [schema.javascript, schema.stylesheet]) {
      expect(asset).toBeDefined();
      expect(fs.existsSync(path.join(EXTENSION_DIR, 'assets', asset!)), asset).toBe(true);
    }
  });

  it('declares every setting the Liquid reads, with unique ids and the add-on as an optional product', () => {
    const ids = schema.settings.flatMap((setting) => (setting.id ? [setting.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    const read = new Set([...liquid.matchAll(/block\.settings\.([a-z_]+)/g)].map((match) => match[1]!));
    expect([...read].filter((id) => !ids.includes(id))).toEqual([]);
    for (const setting of schema.settings) {
      if (setting.type === 'header') expect(setting.content).toBeTruthy();
      else expect(setting.label, setting.id).toBeTruthy();
    }
    // No `autofill`: that would fill in the page's own product, making every gift its own add-on.
    expect(schema.settings.find((setting) => setting.id === 'video_product')).toEqual({
      type: 'product',
      id: 'video_product',
      label: 'Video message add-on product',
      info: expect.any(String),
    });
  });

  it("translates every `t` key it uses from the extension's locales", () => {
    const translations = locales();
    const keys = [...liquid.matchAll(/'([a-z_.]+)'\s*\|\s*t\b/g)].map((match) => match[1]!);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const text = key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], translations);
      expect(typeof text, key).toBe('string');
    }
  });
});

describe('the storefront script', () => {
  /** Type errors of the script checked as plain JS for the browser (DOM, no Node), with `extra` appended. */
  function scriptTypeErrors(extra = ''): string[] {
    const options: ts.CompilerOptions = {
      allowJs: true,
      checkJs: true,
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const scriptPath = SCRIPT.replaceAll(path.sep, '/');
    host.readFile = (fileName) => (fileName === scriptPath ? readFile(fileName) + extra : readFile(fileName));
    const program = ts.createProgram({ rootNames: [scriptPath], options, host });
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      );
  }

  it('type-checks clean (// @ts-check) against the DOM, and a type error or a Node global in it is caught', () => {
    expect(fs.readFileSync(SCRIPT, 'utf8')).toMatch(/^\/\/ @ts-check\n/);
    expect(scriptTypeErrors()).toEqual([]);
    expect(scriptTypeErrors('\n/** @type {number} */ const title = document.title;\nprocess.exit(1);\n')).toEqual([
      expect.stringMatching(/video-gift-message\.js: Type 'string' is not assignable to type 'number'/),
      expect.stringMatching(/video-gift-message\.js: Cannot find name 'process'/),
    ]);
  }, 60_000);

  it('ships as its build: the asset is the minified source, byte for byte (run `npm run build:extensions`)', () => {
    expect(fs.readFileSync(BLOCK_ASSET, 'utf8')).toBe(buildStorefrontBlock());
  });

  it("stays within theme check's limits for app block assets (AssetSizeAppBlock*: bytes as deployed)", () => {
    // `shopify app build` reports a script over 10,000 B as an [error]; the CSS limit is 100,000 B.
    expect(fs.statSync(BLOCK_ASSET).size).toBeLessThanOrEqual(APP_BLOCK_SCRIPT_MAX_BYTES);
    expect(fs.statSync(path.join(EXTENSION_DIR, 'assets/video-gift-message.css')).size).toBeLessThan(100_000);
  });

  it('is linted as a browser script', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    expect(await eslint.isPathIgnored(SCRIPT)).toBe(false);
    const config = await eslint.calculateConfigForFile(SCRIPT);
    expect(config.languageOptions.sourceType).toBe('script');
    expect(config.languageOptions.globals).toMatchObject({
      document: expect.anything(),
      customElements: expect.anything(),
    });
  });
});
