import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maxPageDepth, maxPageElements, sourceShapeProblem, treeShapeProblem } from '../../shared/page/page-limits.ts';
import { JSDOM } from 'jsdom';
import { serverPageTools } from '../../server/pages/page-tools.ts';
import { createPageTools } from '../../shared/page/page-tools.ts';

const containers = fc.constantFrom('div', 'section', 'span', 'blockquote', 'ul', 'em', 'b', 'svg');
const filler = fc.constantFrom('', 'text', '<br>', '<img src="x.png" alt="a > b">', '<!-- <div> -->', '<script>"<div>"</script>', '<hr/>');

/** `depth` elements nested inside one another, with some void elements, comments and raw text beside them. */
const nested = (depth: number) =>
  fc.array(fc.tuple(containers, filler), { minLength: depth, maxLength: depth }).map((levels) => {
    const open = levels.map(([tag, inside]) => `<${tag}>${inside}`).join('');
    const close = levels.map(([tag]) => `</${tag}>`).reverse().join('');
    return open + close;
  });

describe('page limits (LIMIT8, LIMIT9)', () => {
  it('[LIMIT9] takes markup nested up to the limit and refuses one level more, as written and as parsed', () => {
    fc.assert(
      fc.property(fc.integer({ min: maxPageDepth - 3, max: maxPageDepth + 3 }).chain((depth) => fc.tuple(fc.constant(depth), nested(depth))), ([depth, html]) => {
        const problem = sourceShapeProblem(html);
        expect(problem?.code ?? null).toBe(depth > maxPageDepth ? 'PAGE_TOO_DEEP' : null);
        if (depth <= maxPageDepth) expect(treeShapeProblem(serverPageTools().sanitize(html))).toBeNull();
      }),
      { numRuns: 30 },
    );
  });

  it('[LIMIT8] takes up to the limit of elements as written and refuses one more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: maxPageElements - 3, max: maxPageElements + 3 }),
        fc.constantFrom('<p>x</p>', '<br>', '<li>item', '<p>para', '<img alt="<p>">'),
        (count, element) => {
          const problem = sourceShapeProblem(element.repeat(count));
          expect(problem?.code ?? null).toBe(count > maxPageElements ? 'PAGE_TOO_LARGE' : null);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('[LIMIT9] counts what the parser builds: misnested formatting elements it reopens nest as deep as written', () => {
    expect(sourceShapeProblem('<a><b>'.repeat(maxPageDepth))?.code).toBe('PAGE_TOO_DEEP');
    expect(sourceShapeProblem('<p><b>x</p>'.repeat(50))).toBeNull();
    expect(sourceShapeProblem('<li>a'.repeat(5_000))).toBeNull();
  });

  it('[LIMIT8] [LIMIT9] the server refuses a parsed tree over the limits with the same codes', () => {
    const { document } = new JSDOM('<!doctype html><body></body>').window;
    const deep = document.createDocumentFragment();
    let at: ParentNode = deep;
    for (let i = 0; i <= maxPageDepth; i++) at = at.appendChild(document.createElement('div'));
    expect(treeShapeProblem(deep)?.code).toBe('PAGE_TOO_DEEP');
    const wide = document.createDocumentFragment();
    for (let i = 0; i <= maxPageElements; i++) wide.appendChild(document.createElement('i'));
    expect(treeShapeProblem(wide)?.code).toBe('PAGE_TOO_LARGE');
  });
});

describe('large pages', () => {
  const piece = fc.constantFrom(
    '<h1>', '</h1>', '<p class="lead">', '</p>', '<a href="https://x.test/a">', '</a>', '<table><tr><td>', '</td></tr></table>', '<tr><td>cell',
    '<b>', '</b>', '<br>', '<!-- c -->', '</template>', '<template>', '<textarea>', '</textarea>', '<svg><circle r="1"/></svg>', 'text', '&amp;', '<',
  );
  const window = new JSDOM('<!doctype html><body></body>').window as unknown as Window & typeof globalThis;
  const innerHtmlTools = createPageTools(window);
  const serialize = (fragment: DocumentFragment) => {
    const template = window.document.createElement('template');
    template.content.append(window.document.importNode(fragment, true));
    return template.innerHTML;
  };

  it('the server reads them as DOMPurify over a template\'s innerHTML does, however they are misnested', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 40 }), (parts) => {
        const html = '<p>filler</p>'.repeat(1_400) + parts.join('');
        expect(serverPageTools().serialize(serverPageTools().sanitize(html))).toBe(serialize(innerHtmlTools.sanitize(html)));
      }),
      { numRuns: 10 },
    );
  });
});
