import js from '@eslint/js';
import ts from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

export default ts.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'public/', 'tmp/', 'test-results/', 'bench-results/'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser } },
  },
  // The pure rooms use no DOM (DESIGN §2). Which room may import which, no circles, and that the pure
  // rooms and the page never reach tfjs are checked by dependency-cruiser (.dependency-cruiser.mjs,
  // `npm run layers`, part of `npm run lint`).
  {
    files: ['src/env/**', 'src/stats/**', 'src/lab/**', 'src/findings/**', 'src/lessons/**', 'src/sandbox/**'],
    rules: { 'no-restricted-globals': ['error', 'window', 'document', 'navigator'] },
  },
);
