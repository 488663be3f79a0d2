import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The training worker is an ES module (it imports tfjs and comlink), so workers are bundled as ES.
export default defineConfig({
  plugins: [svelte()],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { host: '127.0.0.1' },
});
