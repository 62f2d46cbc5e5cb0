import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** Builds the plain y-prosemirror editor the browser tests compare Tandem's editor with. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  logLevel: 'warn',
  build: { emptyOutDir: true },
  resolve: {
    dedupe: ['yjs', 'y-protocols', 'prosemirror-model', 'prosemirror-state', 'prosemirror-view', 'prosemirror-transform'],
  },
});
