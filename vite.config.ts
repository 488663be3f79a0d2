import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// index.html's Content-Security-Policy allows no inline styles: the built page has none, but Vite's
// dev server injects each CSS module as a <style> element, so `vite` (dev only) relaxes style-src.
const devInlineStyles: Plugin = {
  name: 'csp-dev-inline-styles',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
};

// The training worker is an ES module (it imports tfjs and comlink), so workers are bundled as ES.
export default defineConfig({
  plugins: [svelte(), devInlineStyles],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { host: '127.0.0.1' },
});
