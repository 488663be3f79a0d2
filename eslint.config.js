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
  // The pure rooms use no DOM: they run in Node, in the worker and in tests alike. Which room may import which, no circles, and that the pure
  // rooms and the page never reach tfjs are checked by dependency-cruiser (.dependency-cruiser.mjs,
  // `npm run layers`, part of `npm run lint`).
  // A file a reader can hold in mind: 400 lines of code (a comment that says why is never counted against it).
  // The files named below are longer for a reason, and may not grow past 650.
  { files: ['src/**', 'bench/**', 'scripts/**'], rules: { 'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }] } },
  {
    files: [
      'src/lab/config.ts', // the one settings table: a row per setting, each with its doc
      'src/model/transformer.ts', // the model in one readable file, as nanoGPT keeps it
      'src/env/world.ts', // the world's tables and the generator that fills them read together
      'src/findings/findings.ts', // the seven findings declared in one table, each with the paper's numbers
      'src/store/labStore.ts', // the IndexedDB schema and every read and write of it in one place
      'src/lessons/lessonTakeaway.ts', // a takeaway's lines in the order the page shows them
      'scripts/e2e.mjs', // the browser tests' harness, shards and groups
    ],
    rules: { 'max-lines': ['error', { max: 650, skipBlankLines: true, skipComments: true }] },
  },
  // A line a reader takes in at once: 120 characters. A long string, template literal, URL or an attribute's string
  // value is exempt (breaking it changes what it says); `npm run wrap -- FILE` wraps the rest (CONTRIBUTING.md).
  {
    files: ['src/**', 'bench/**', 'scripts/**'],
    rules: {
      'max-len': ['error', { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true,
        ignoreRegExpLiterals: true, ignoreTrailingComments: true, ignorePattern: '^\\s*[\\w:-]+="[^"]*"\\s*/?>?$' }],
    },
  },
  {
    // hand-written WebAssembly: one instruction group a line, the stack effects read across; broken by a formatter
    // the program no longer reads as one
    files: ['src/model/kernels/wasmAttentionMatMul.ts', 'src/model/kernels/wasmTrainingAttention.ts'],
    rules: { 'max-len': ['error', { code: 175, ignoreStrings: true, ignoreTemplateLiterals: true }] },
  },
  {
    files: ['src/env/**', 'src/stats/**', 'src/lab/**', 'src/findings/**', 'src/lessons/**', 'src/sandbox/**'],
    rules: { 'no-restricted-globals': ['error', 'window', 'document', 'navigator'] },
  },
);
