import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { execFileSync } from 'node:child_process';

// index.html's Content-Security-Policy allows no inline styles: the built page has none, but Vite's
// dev server injects each CSS module as a <style> element, so `vite` (dev only) relaxes style-src.
const devInlineStyles: Plugin = {
  name: 'csp-dev-inline-styles',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
};

// tfjs hands its threaded wasm factory to the pthread workers as source text (Function.toString). The
// minifier turns the factory's `typeof _scriptDir !== "undefined" && _scriptDir` into a test of the
// closure variable it renamed, which the worker lacks: `e is not defined`, no threads. The check only
// serves a page that loads the factory with a <script> tag; the build drops it.
const SCRIPT_DIR_CHECK = 'if(typeof _scriptDir !== "undefined" && _scriptDir){scriptDirectory=_scriptDir}';
const tfjsWasmThreadsMinifySafe: Plugin = {
  name: 'tfjs-wasm-threads-minify-safe',
  apply: 'build',
  transform(code, id) {
    if (!/tfjs-backend-wasm-threaded-simd\.js($|\?)/.test(id)) return null;
    if (!code.includes(SCRIPT_DIR_CHECK)) this.error('tfjs-backend-wasm changed: its threaded factory has no _scriptDir check to drop (vite.config.ts)');
    return { code: code.replace(SCRIPT_DIR_CHECK, ''), map: null };
  },
};

// @stdlib's series and continued-fraction helpers (under the t and chi-square distributions of
// src/lab/seedStatistics.ts) probe for generators at load with `eval('(function* () {})')`. The probe
// is caught, but the page's CSP (no 'unsafe-eval') reports it as a violation every load. Every browser
// with WebGPU or wasm SIMD has generators, so the build answers the probe without eval.
const STDLIB_GENERATOR_PROBE = '@stdlib/assert-has-generator-support';
const stdlibGeneratorsWithoutEval: Plugin = {
  name: 'stdlib-generators-without-eval',
  enforce: 'pre',
  resolveId: (id) => (id === STDLIB_GENERATOR_PROBE ? '\0stdlib-has-generator-support' : null),
  load: (id) => (id === '\0stdlib-has-generator-support' ? 'module.exports = function hasGeneratorSupport() { return true; };' : null),
};

// Cross-origin isolation (COOP + COEP) gives the page SharedArrayBuffer, which tfjs's threaded wasm
// build needs; every resource is same-origin, so require-corp blocks nothing. A static host needs the
// same two headers: public/_headers (Netlify, Cloudflare Pages) and the README's note.
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The page's build, carried in a lesson's result link (issue 39): a class pools only results of one build,
// since two builds may train differently. The commit's short hash, '+' when the tree had changes; 'dev'
// without git (a tarball).
function buildId(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=8', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha}+` : sha;
  } catch {
    return 'dev';
  }
}

// The training worker is an ES module (it imports tfjs and comlink), so workers are bundled as ES.
export default defineConfig({
  plugins: [svelte(), devInlineStyles, stdlibGeneratorsWithoutEval],
  define: { __STAR_BUILD__: JSON.stringify(buildId()) },
  worker: { format: 'es', plugins: () => [tfjsWasmThreadsMinifySafe, stdlibGeneratorsWithoutEval] },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
});
