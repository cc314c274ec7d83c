import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The pages' scripts run in the browser (bundled by src/videos/browser-assets.ts), not in Node.
    files: ['src/**/browser/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
);
