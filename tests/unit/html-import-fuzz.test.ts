import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import type { Node } from 'prosemirror-model';
import { htmlToDoc } from '../../server/docs/html-import.ts';
import { blocksHtml } from '../../server/docs/doc-html.ts';
import { isSafeLinkHref } from '../../shared/model/safe-url.ts';

/*
 * CAT6: HTML import under random markup, hostile markup mixed in. Whatever comes in, the import
 * answers a document the schema accepts, with unique block ids, links only to safe targets,
 * and an HTML export with no script, no handler and no unsafe URL.
 */

const tags = ['p', 'h1', 'h2', 'h4', 'div', 'span', 'b', 'strong', 'i', 'em', 's', 'code', 'pre', 'ul', 'ol', 'li', 'blockquote', 'a', 'br', 'hr', 'table', 'tr', 'td', 'th', 'img', 'script', 'style', 'iframe', 'svg', 'math', 'template', 'form', 'select', 'textarea'];
const hostileAttributes = [
  'onclick="alert(1)"',
  'onerror="alert(1)"',
  'href="javascript:alert(1)"',
  'href=" JaVaScRiPt:alert(1)"',
  'href="data:text/html,<script>alert(1)</script>"',
  'href="https://example.com/ok"',
  'href="mailto:a@example.com"',
  'src="x" onerror="alert(1)"',
  'style="background:url(javascript:alert(1))"',
  'data-block-id="dup"',
  'id="dup"',
  'start="3"',
  'alt="A picture"',
];
const texts = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('<', '>', '&amp;', '&lt;script&gt;', '"', "'", '</p>', '<!--', '-->', '<![CDATA[x]]>'));

const markup: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    texts,
    fc
      .tuple(fc.constantFrom(...tags), fc.subarray(hostileAttributes, { maxLength: 3 }), fc.array(tie('node'), { maxLength: 4 }), fc.boolean())
      .map(([tag, attributes, children, closed]) => `<${tag}${attributes.map((a) => ' ' + a).join('')}>${children.join('')}${closed ? `</${tag}>` : ''}`),
  ),
})).node;

const reader = new JSDOM('<!doctype html><body></body>');
const exportTags = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'hr', 'ul', 'ol', 'li', 'br', 'a', 'strong', 'em', 's', 'table', 'tbody', 'tr', 'th', 'td'];

function linksOf(doc: Node): unknown[] {
  const hrefs: unknown[] = [];
  doc.descendants((node) => {
    for (const mark of node.marks) if (mark.type.name === 'link') hrefs.push(mark.attrs.href);
  });
  return hrefs;
}

describe('HTML import', () => {
  it('[CAT6] always answers a valid document, unique ids, safe links, and an export without active content', () => {
    fc.assert(
      fc.property(fc.array(markup, { maxLength: 6 }), (parts) => {
        const { doc, warnings } = htmlToDoc(parts.join(''));
        doc.check();
        const ids = [] as unknown[];
        doc.forEach((block) => ids.push(block.attrs.id));
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).not.toContain('dup');
        for (const href of linksOf(doc)) expect(isSafeLinkHref(href)).toBe(true);
        // The export read back as a browser would: only the writer's elements, no handler, safe links.
        const body = reader.window.document.body;
        body.innerHTML = blocksHtml(doc);
        for (const element of body.querySelectorAll('*')) {
          expect(exportTags).toContain(element.tagName.toLowerCase());
          for (const name of element.getAttributeNames()) expect(['href', 'title', 'rel', 'start', 'class']).toContain(name);
          if (element.hasAttribute('href')) expect(isSafeLinkHref(element.getAttribute('href'))).toBe(true);
        }
        // Tables come out rectangular (every row as wide as the first), as the editor keeps them.
        doc.descendants((node) => {
          if (node.type.name === 'table') for (let row = 0; row < node.childCount; row++) expect(node.child(row).childCount).toBe(node.child(0).childCount);
          return true;
        });
        for (const warning of warnings) expect(warning).toMatch(/^(A table inside a table cell was|\d+ tables inside table cells were|An image was|\d+ images were) /);
      }),
      { numRuns: 150 },
    );
  });

  it('[CAT6] says every table inside a table and every image it could not keep', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }), (tables, images) => {
        const html = '<table><tr><td>x <table><tr><td>y</td></tr></table></td></tr></table>'.repeat(tables) + '<p><img src="a.png" alt=""></p>'.repeat(images);
        const { warnings } = htmlToDoc(html);
        expect(warnings.length).toBe((tables > 0 ? 1 : 0) + (images > 0 ? 1 : 0));
        if (tables > 1) expect(warnings[0]).toContain(`${tables} tables inside`);
        if (images > 1) expect(warnings.at(-1)).toContain(`${images} images`);
      }),
    );
  });

  it('[CAT6] keeps a table as a table: header, alignment and marks, rows padded to the widest, a table in a cell as its text', () => {
    const { doc, warnings } = htmlToDoc(
      '<table><thead><tr><th align="right">Name</th><th style="text-align: center">Qty</th></tr></thead>' +
        '<tbody><tr><td><b>Pears</b></td><td colspan="2">4</td></tr><tr><td>Figs <table><tr><td>a</td><td>b</td></tr></table></td></tr></tbody></table>',
    );
    doc.check();
    const table = doc.firstChild!;
    expect(table.type.name).toBe('table');
    expect(table.childCount).toBe(3);
    const rows = [0, 1, 2].map((index) => table.child(index));
    expect(rows.map((row) => row.childCount)).toEqual([2, 2, 2]);
    expect(rows[0].child(0).type.name).toBe('table_header');
    expect([rows[0].child(0).attrs.align, rows[0].child(1).attrs.align]).toEqual(['right', 'center']);
    expect(rows[1].child(0).firstChild!.marks.map((mark) => mark.type.name)).toEqual(['strong']);
    expect(rows.map((row) => [row.child(0).textContent, row.child(1).textContent])).toEqual([['Name', 'Qty'], ['Pears', '4'], ['Figs a | b', '']]);
    expect(warnings).toEqual(['A table inside a table cell was kept as the text of its cells: a cell holds text only.']);
  });
});
