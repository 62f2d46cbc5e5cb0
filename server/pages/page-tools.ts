import type { PageTools } from '../../shared/page/page-tools.ts';
import { PageLimitError, sourceShapeProblem, treeShapeProblem } from '../../shared/page/page-limits.ts';
import { parsePageFragment, serializeChildren, type DomFragment } from './page-dom.ts';
import { sanitizePageTree } from './page-sanitizer.ts';

/**
 * The server's page tools: parse5 parses into the server's page DOM (page-dom.ts) and
 * page-sanitizer.ts applies DOMPurify's rules with Tandem's configuration. Nothing is loaded or
 * run. Every sanitize refuses a page beyond LIMIT8 and LIMIT9 (PageLimitError): the markup
 * before it is parsed, the tree before it is sanitized. They run in the work pool's threads
 * (server/work/work-tasks.ts), never on the event loop.
 *
 * The page DOM answers the part of the DOM shared/page/ uses, not all of `Document`'s; the
 * casts below say so once, here, and tests/unit/page-model.test.ts and page-properties.test.ts
 * run shared/page/ over it as over a browser's DOM.
 */
export const serverPageTools: () => PageTools = () => tools;

const tools: PageTools = {
  sanitize(html) {
    refuse(sourceShapeProblem(html));
    const root = parsePageFragment(html);
    refuse(treeShapeProblem(root as unknown as Node));
    sanitizePageTree(root);
    return root as unknown as DocumentFragment;
  },
  serialize(root) {
    return serializeChildren(root as unknown as DomFragment);
  },
};

function refuse(problem: ReturnType<typeof sourceShapeProblem>): void {
  if (problem) throw new PageLimitError(problem);
}
