import { JSDOM } from 'jsdom';
import { createPageTools, type PageTools } from '../../shared/page/page-tools.ts';

let tools: PageTools | null = null;

/**
 * The server's page tools: DOMPurify over one jsdom window, made on first use (jsdom takes a
 * moment to start, and a server without pages never needs it). jsdom parses and serializes
 * only: it runs no script and fetches nothing (its defaults).
 */
export function serverPageTools(): PageTools {
  tools ??= createPageTools(new JSDOM('<!doctype html><html><body></body></html>').window as unknown as Window & typeof globalThis);
  return tools;
}
