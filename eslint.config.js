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
  // Layering (DESIGN §2): env and lab are pure TS; the UI never touches tfjs.
  {
    files: ['src/env/**', 'src/lab/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@tensorflow/*', '**/model/**', '**/rl/**', '**/ui/**', '**/worker/**'] }],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator'],
    },
  },
  {
    files: ['src/ui/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@tensorflow/*', '**/model/**', '**/rl/**'] }] },
  },
);
