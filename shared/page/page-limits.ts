/**
 * The size of a page's HTML that the server will parse (PROTOCOL.md LIMIT8, LIMIT9). HTML
 * parsing and sanitizing cost grows with the elements and, in the HTML parser's
 * repair of misnested formatting elements, with how deep they nest; a page too big or too deep
 * is refused before any of that work, with a code of its own.
 *
 * Two checks, both linear: `sourceShapeProblem` reads the markup as written (a tokenizer, no
 * tree), before anything parses it; `treeShapeProblem` counts the tree the parser built, since
 * the parser may nest deeper than the tags as written (it reopens formatting elements).
 */

/** Elements a page may hold (start tags as written, elements as parsed). */
export const maxPageElements = 20_000;

/** Elements open at once, as written and as parsed. */
export const maxPageDepth = 256;

export type PageLimitCode = 'PAGE_TOO_LARGE' | 'PAGE_TOO_DEEP';

export interface PageLimitProblem {
  code: PageLimitCode;
  message: string;
}

/** Thrown by the server's page tools when a parsed page breaks a limit. */
export class PageLimitError extends Error {
  constructor(readonly problem: PageLimitProblem) {
    super(problem.message);
    this.name = 'PageLimitError';
  }
}

const voidElements = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen', 'frame',
]);
/** Elements whose content is text up to their end tag. */
const rawTextElements = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
/** The formatting elements the HTML parser reopens after a misnested end tag. */
const formattingElements = new Set(['a', 'b', 'big', 'code', 'em', 'font', 'i', 'nobr', 's', 'small', 'strike', 'strong', 'tt', 'u']);
/** A start tag of one of these closes the innermost open element of its group (the parser's implied end tags). */
const closesSameGroup: Record<string, string> = {
  p: 'p', li: 'li', dt: 'd', dd: 'd', option: 'o', optgroup: 'og', tr: 'tr', td: 't', th: 't', rb: 'r', rt: 'r', rp: 'r', a: 'a', nobr: 'nobr',
};

/** A start tag of one of these ends an open `<p>` (the parser closes it in button scope). */
const closesParagraph = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption', 'figure',
  'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'section', 'summary', 'ul', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre',
  'listing', 'form', 'table',
]);

const tagStart = /<(\/?)([A-Za-z][^\s/>]*)|<!--|<[!?]/g;
const tagRest = /(?:[^>"']|"[^"]*"|'[^']*')*>/y;
const rawTextEnds: Record<string, RegExp> = {};

/**
 * Why `html`, as written, breaks LIMIT8 or LIMIT9, or null. Counts start tags (void ones
 * included) and the elements open at once, closing an element at its end tag and at the start
 * tags the HTML parser closes it for (a `<p>` ends an open `<p>`, an `<a>` an open `<a>`, …).
 */
export function sourceShapeProblem(html: string): PageLimitProblem | null {
  const open: string[] = [];
  let elements = 0;
  let foreign = 0;
  tagStart.lastIndex = 0;
  for (let match = tagStart.exec(html); match !== null; match = tagStart.exec(html)) {
    const at = match.index;
    if (match[0] === '<!--') {
      const end = html.indexOf('-->', at + 4);
      if (end < 0) break;
      tagStart.lastIndex = end + 3;
      continue;
    }
    tagRest.lastIndex = at + match[0].length;
    const rest = tagRest.exec(html);
    if (rest === null) break;
    tagStart.lastIndex = tagRest.lastIndex;
    if (match[2] === undefined) continue;
    const name = match[2].toLowerCase();
    if (match[1] === '/') {
      const index = open.lastIndexOf(name);
      if (index >= 0) foreign -= closeAt(open, index);
      continue;
    }
    if (++elements > maxPageElements) return tooLarge();
    if (voidElements.has(name) || (foreign > 0 && rest[0].endsWith('/>'))) continue;
    if (rawTextElements.has(name)) {
      const endTag = (rawTextEnds[name] ??= new RegExp(`</${name}`, 'gi'));
      endTag.lastIndex = tagStart.lastIndex;
      if (endTag.exec(html) === null) break;
      tagStart.lastIndex = endTag.lastIndex - name.length - 2;
      continue;
    }
    if (name === 'plaintext') break;
    const group = closesSameGroup[name];
    if (group !== undefined) {
      let index = open.length - 1;
      while (index >= 0 && closesSameGroup[open[index]] !== group) index--;
      if (index >= 0) foreign -= closeAt(open, index);
    } else if (closesParagraph.has(name) && open[open.length - 1] === 'p') open.pop();
    if (name === 'svg' || name === 'math') foreign++;
    open.push(name);
    if (open.length > maxPageDepth) return tooDeep();
  }
  return null;
}

/**
 * Closes the open element at `index` and those opened inside it, except formatting elements,
 * which the parser opens again where the text goes on (so they still count as open). Returns
 * how many foreign roots (svg, math) it closed.
 */
function closeAt(open: string[], index: number): number {
  let foreignClosed = 0;
  let kept = index;
  for (let at = index; at < open.length; at++) {
    const name = open[at];
    if (at > index && formattingElements.has(name)) open[kept++] = name;
    else if (name === 'svg' || name === 'math') foreignClosed++;
  }
  open.length = kept;
  return foreignClosed;
}

/** Why the parsed tree under `root` breaks LIMIT8 or LIMIT9, or null. Iterative, so no depth overflows it. */
export function treeShapeProblem(root: Node): PageLimitProblem | null {
  let elements = 0;
  const stack: [Node, number][] = [[root, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    // By index: the server's page DOM keeps children in an array, where a sibling is found by search.
    const children = node.childNodes;
    for (let at = 0; at < children.length; at++) {
      const child = children[at];
      if (child.nodeType !== 1) continue;
      if (++elements > maxPageElements) return tooLarge();
      if (depth + 1 > maxPageDepth) return tooDeep();
      stack.push([child, depth + 1]);
    }
  }
  return null;
}

function tooLarge(): PageLimitProblem {
  return { code: 'PAGE_TOO_LARGE', message: `A page holds at most ${maxPageElements.toLocaleString('en-US')} elements.` };
}

function tooDeep(): PageLimitProblem {
  return { code: 'PAGE_TOO_DEEP', message: `A page nests at most ${maxPageDepth} elements inside one another.` };
}
