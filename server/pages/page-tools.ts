import { createRequire } from 'node:module';
import type * as JsdomModule from 'jsdom';
import { createPageTools, type PageTools } from '../../shared/page/page-tools.ts';
import { PageLimitError, sourceShapeProblem, treeShapeProblem } from '../../shared/page/page-limits.ts';

let tools: PageTools | null = null;

/**
 * The server's page tools: DOMPurify over one jsdom window, made on first use. jsdom is loaded
 * then too (it takes about half a second), so a server that never meets a page never pays for
 * it. jsdom parses and serializes only: it runs no script and fetches nothing (its defaults).
 * Every sanitize refuses a page beyond LIMIT8 and LIMIT9 (PageLimitError): the markup before it
 * is parsed, the tree before it is sanitized. They run in the work pool's threads
 * (server/work/work-tasks.ts), never on the event loop.
 */
export function serverPageTools(): PageTools {
  if (!tools) {
    const { JSDOM } = createRequire(import.meta.url)('jsdom') as typeof JsdomModule;
    tools = createPageTools(new JSDOM('<!doctype html><html><body></body></html>').window as unknown as Window & typeof globalThis, {
      parseAsDocument: true,
      inspectSource: refuse(sourceShapeProblem),
      inspect: refuse(treeShapeProblem),
    });
  }
  return tools;
}

function refuse<T>(problemOf: (input: T) => ReturnType<typeof sourceShapeProblem>): (input: T) => void {
  return (input) => {
    const problem = problemOf(input);
    if (problem) throw new PageLimitError(problem);
  };
}
