import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizePage, readElements } from '../../shared/page/page-model.ts';
import { applyPageOps, candidateOf, type PageChange } from '../../shared/page/page-applier.ts';
import { pageOpKinds } from '../../shared/page/page-ops.ts';
import { JSDOM } from 'jsdom';
import { serverPageTools } from '../../server/pages/page-tools.ts';

/*
 * Properties of the page model and applier over random HTML and random ops. fast-check prints
 * the seed and the shrunk counterexample of a failure; replay with TANDEM_SEED=<seed>.
 */

const seed = process.env.TANDEM_SEED ? Number(process.env.TANDEM_SEED) : undefined;
const params = (numRuns: number) => ({ numRuns, ...(seed === undefined ? {} : { seed }) });
const tools = serverPageTools();
/** A browser's DOM, to look at what the server wrote. */
const inspector = new JSDOM('<!doctype html><body></body>').window.document;

const piece = fc.constantFrom(
  '<h1>', '</h1>', '<p class="lead">', '</p>', '<a href="https://x.test/a">', '<a href="javascript:alert(1)">', '</a>',
  '<ul><li>', '</li>', '</ul>', '<table><tr><td>', '</td></tr></table>', '<img src="x" onerror="alert(1)">',
  '<script>alert(1)</script>', '<svg onload="alert(1)"><circle r="1"/></svg>', '<style>p{color:red}</style>',
  '<iframe srcdoc="<script>alert(1)</script>">', '<b data-tandem-id="dup">', '</b>', '<br>', '<!-- c -->',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', 'text', ' ', '&amp;', '<', '"', '>',
);
const html = fc.oneof(fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')), fc.string({ maxLength: 80 }));

function counter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${n++}`;
}

/** Attributes a browser follows as URLs (a script URL elsewhere, e.g. in `class`, is inert text). */
const urlAttributes = /^(href|src|srcset|action|formaction|xlink:href|poster|background|cite|data|codebase|ping|manifest)$/i;

/** What would run in a browser: script-like elements, event handlers, script URLs, srcdoc. */
function unsafeParts(page: string): string[] {
  const template = inspector.createElement('template');
  template.innerHTML = page;
  const found: string[] = [];
  for (const element of Array.from(template.content.querySelectorAll('*'))) {
    if (/^(script|iframe|object|embed|frame)$/i.test(element.localName)) found.push(element.localName);
    for (const attribute of Array.from(element.attributes)) {
      if (/^on/i.test(attribute.name) || attribute.name === 'srcdoc') found.push(attribute.name);
      const scriptUrl = urlAttributes.test(attribute.name) && /^\s*(javascript|data|vbscript):/i.test(attribute.value);
      if (scriptUrl && !(element.localName === 'img' && attribute.name === 'src')) {
        found.push(`${attribute.name}=${attribute.value}`);
      }
    }
  }
  return found;
}

describe('page properties', () => {
  it('[PAGE1] [PAGE2] random HTML normalizes without throwing into a safe page whose elements all carry unique ids, and a second pass changes nothing', () => {
    fc.assert(
      fc.property(html, (input) => {
        const source = normalizePage(tools, input, counter('e'));
        expect(unsafeParts(source)).toEqual([]);
        const ids = readElements(tools, source).map((element) => element.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(tools.sanitize(source).querySelectorAll('*').length).toBe(ids.length);
        expect(normalizePage(tools, source, () => { throw new Error('an element lost its id'); })).toBe(source);
      }),
      params(300),
    );
  });

  const op = (ids: string[], hashes: Map<string, string>) =>
    fc.record({
      op: fc.constantFrom(...pageOpKinds, 'replace_block'),
      elementId: fc.oneof(fc.constantFrom(...ids, 'ghost'), fc.string({ maxLength: 5 })),
      text: fc.oneof(fc.string({ maxLength: 20 }), piece),
      name: fc.constantFrom('class', 'href', 'alt', 'title', 'onclick', 'style', 'src'),
      value: fc.constantFrom('x', 'https://ok.test/', 'javascript:alert(1)', 'data:text/html,x', '" onclick="alert(1)'),
      html: fc.oneof(html, piece),
      stale: fc.boolean(),
      instructionId: fc.constantFrom('i1', 'i1', 'other'),
    }).map((spec) => {
      const expectHash = spec.stale ? 'stale' : (hashes.get(spec.elementId) ?? 'none');
      const base = { op: spec.op, elementId: spec.elementId, expectHash, instructionId: spec.instructionId };
      if (spec.op === 'set_text') return { ...base, text: spec.text };
      if (spec.op === 'set_attribute') return { ...base, name: spec.name, value: spec.value };
      return { ...base, html: spec.html };
    });

  it('[PAGE5] random ops never throw; a refused batch yields no change and an accepted one a safe candidate', () => {
    fc.assert(
      fc.property(
        html.chain((input) => {
          const source = normalizePage(tools, `<main>${input}</main><h1>Title</h1>`, counter('e'));
          const elements = readElements(tools, source);
          const hashes = new Map(elements.map((element) => [element.id, element.hash]));
          const ids = elements.map((element) => element.id);
          return fc.tuple(fc.constant(source), fc.array(fc.array(op(ids, hashes), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }));
        }),
        ([source, batches]) => {
          const elements = readElements(tools, source);
          const run = {
            fence: new Set(elements.map((element) => element.id)),
            instructions: new Set(['i1']),
            allowedOps: new Set<string>(pageOpKinds),
            makeId: counter('n'),
          };
          let changes: PageChange[] = [];
          expect(unsafeParts('<a href="javascript:x()" onclick="y()">a</a>')).toEqual(['href=javascript:x()', 'onclick']);
          for (const batch of batches) {
            const before = candidateOf(tools, source, changes);
            const result = applyPageOps(tools, source, changes, batch, run);
            if (!result.ok) {
              expect(result.error.index).toBeGreaterThanOrEqual(-1);
              expect(result.error.index).toBeLessThan(batch.length);
              expect(candidateOf(tools, source, changes)).toBe(before);
              continue;
            }
            expect(result.applied).toBe(batch.length);
            changes = [...changes, ...result.changes];
            const candidate = candidateOf(tools, source, changes);
            expect(unsafeParts(candidate)).toEqual([]);
            const ids = readElements(tools, candidate).map((element) => element.id);
            expect(new Set(ids).size).toBe(ids.length);
          }
        },
      ),
      params(150),
    );
  });
});
