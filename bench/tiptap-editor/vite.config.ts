import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** Builds the browser benchmark's peer editor (Tiptap); `bench/browser.ts` passes `--outDir`. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  logLevel: 'warn',
  build: { emptyOutDir: true },
  resolve: {
    dedupe: ['yjs', 'y-protocols', 'prosemirror-model', 'prosemirror-state', 'prosemirror-view', 'prosemirror-transform'],
  },
});
