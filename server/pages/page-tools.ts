import { createRequire } from 'node:module';
import type * as JsdomModule from 'jsdom';
import { createPageTools, type PageTools } from '../../shared/page/page-tools.ts';

let tools: PageTools | null = null;

/**
 * The server's page tools: DOMPurify over one jsdom window, made on first use. jsdom is loaded
 * then too (it takes about half a second), so a server that never meets a page never pays for
 * it. jsdom parses and serializes only: it runs no script and fetches nothing (its defaults).
 */
export function serverPageTools(): PageTools {
  if (!tools) {
    const { JSDOM } = createRequire(import.meta.url)('jsdom') as typeof JsdomModule;
    tools = createPageTools(new JSDOM('<!doctype html><html><body></body></html>').window as unknown as Window & typeof globalThis);
  }
  return tools;
}
