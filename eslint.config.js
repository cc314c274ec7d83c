import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'coverage/',
      'test/fixtures/',
      // Written by Shopify CLI: the extensions' types (`shopify app dev`, in its own style) and bundles.
      'extensions/*/shopify.d.ts',
      'extensions/*/dist/',
      // Built from src/shopify/storefront-block/ (npm run build:extensions), minified.
      'extensions/*/assets/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: a promise nobody awaits is an error that vanishes, a promise where a
    // callback's result is ignored is a failure nobody sees, and a switch over a union must say what
    // it does with a value added later.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The pages' scripts and the embedded admin run in the browser (bundled by src/http/browser-assets.ts), not in Node.
    files: ['src/**/browser/**/*.ts', 'src/shopify/admin/ui/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The storefront block's script (built into its theme extension's assets): a plain script Shopify
    // loads into the storefront, not a module.
    files: ['src/shopify/storefront-block/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
);
