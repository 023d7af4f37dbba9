/**
 * Builds the Svelte renderer. Root is this folder; output goes to dist/renderer, loaded by Electron's
 * loadFile (hence base './') and served by the headless hub over HTTP.
 */
import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dev server injects component CSS as <style> tags, which the production CSP forbids; loosen style-src
 * for `vite dev` only. Production builds emit CSS files, so the shipped page keeps the strict policy.
 */
function devStyleCsp(): Plugin {
  return {
    name: 'spillway-dev-style-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      return html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  plugins: [svelte({ configFile: false, emitCss: true }), devStyleCsp()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Inlined assets would become data: URLs; keep them as files so the CSP stays 'self'.
    assetsInlineLimit: 0,
  },
  server: { port: 5174, strictPort: false },
});
