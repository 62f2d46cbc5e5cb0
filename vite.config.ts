import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const clientFile = (path: string) => fileURLToPath(new URL(`./client/${path}`, import.meta.url));

export default defineConfig({
  root: 'client',
  publicDir: 'public',
  plugins: [
    // The service worker (client/sw.ts → /sw.js) with the build's file list injected by Workbox;
    // client/sw-register.ts registers it, so the plugin injects no script and no web manifest.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: '.',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: false,
      injectManifest: { globPatterns: ['**/*.{js,css,html,svg,png,ico,woff2}'] },
    }),
  ],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    // No source maps in the served build.
    sourcemap: false,
    // Every browser that runs the app (ES2020 modules, custom elements) has modulepreload.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: { index: clientFile('index.html') },
      output: {
        // Everything the page loads at once is one script: split by which lazy chunk shares
        // what, it came as seven, which compress worse apart (about 4 KiB gzip) and each cost a
        // request. The chunks loaded on demand import what they share with it from it.
        codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] },
      },
    },
  },
  resolve: {
    // Exactly one copy of Yjs and of each ProseMirror package may reach the bundle.
    dedupe: ['yjs', 'y-protocols', 'prosemirror-model', 'prosemirror-state', 'prosemirror-view', 'prosemirror-transform'],
  },
  server: {
    // `vite` (dev) in front of a running `npm start`: the API and the WebSocket go to it.
    proxy: {
      '/api': 'http://127.0.0.1:8787',
      '/collab': { target: 'ws://127.0.0.1:8787', ws: true },
    },
  },
});
