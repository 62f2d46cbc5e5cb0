import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { Page } from 'playwright-core';
import { serveStatic } from '../../bench/lib/static-server.ts';

export interface OracleEditor {
  /** Opens document `docId` of the server at `wsUrl` in `page`; resolves once it is editable. */
  open(page: Page, wsUrl: string, docId: string, token: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds and serves the plain y-prosemirror editor of tests/e2e/oracle-editor: the editing
 * tests type the same keys into it and into Tandem's editor, and compare the documents.
 */
export async function startOracleEditor(): Promise<OracleEditor> {
  const outDir = mkdtempSync(join(tmpdir(), 'tandem-oracle-'));
  await build({ configFile: fileURLToPath(new URL('../e2e/oracle-editor/vite.config.ts', import.meta.url)), build: { outDir } });
  const served = await serveStatic(outDir);
  return {
    async open(page, wsUrl, docId, token) {
      await page.goto(`${served.url}/?${new URLSearchParams({ ws: wsUrl, doc: docId, token })}`);
      await page.locator('html[data-synced]').waitFor({ state: 'attached', timeout: 20_000 });
    },
    async close() {
      await served.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
