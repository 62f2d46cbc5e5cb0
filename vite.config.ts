import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const clientFile = (path: string) => fileURLToPath(new URL(`./client/${path}`, import.meta.url));

/**
 * Gives the service worker (client/sw.ts, emitted as /sw.js) the list of every file of the
 * build, as `__TANDEM_PRECACHE__ = {version, files}` in front of its code. The version is a
 * hash of the file names, so each build yields a new worker and a fresh cache.
 */
function precacheManifest(): Plugin {
  return {
    name: 'tandem-precache-manifest',
    apply: 'build',
    generateBundle(_options, bundle) {
      const worker = bundle['sw.js'];
      if (!worker || worker.type !== 'chunk') this.error('client/sw.ts was not emitted as sw.js');
      const files = Object.keys(bundle)
        .filter((name) => name !== 'sw.js' && !name.endsWith('.map') && !name.startsWith('.vite/'))
        .map((name) => '/' + name)
        .sort();
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 12);
      worker.code = `var __TANDEM_PRECACHE__ = ${JSON.stringify({ version, files })};\n${worker.code}`;
    },
  };
}

export default defineConfig({
  root: 'client',
  publicDir: 'public',
  plugins: [precacheManifest()],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    // No source maps in the served build.
    sourcemap: false,
    rolldownOptions: {
      input: { index: clientFile('index.html'), sw: clientFile('sw.ts') },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
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
