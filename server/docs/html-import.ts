import { createRequire } from 'node:module';
import type * as JsdomModule from 'jsdom';
import { DOMParser as ProseMirrorParser, type Node } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { withBlockIds } from '../../shared/model/block-ids.ts';
import { imageWarnings, tableWarnings } from '../../shared/model/markdown-warnings.ts';
import { isSafeImageSrc } from '../../shared/model/image-src.ts';
import { serverPageTools } from '../pages/page-tools.ts';
import { EditorState } from 'prosemirror-state';
import { fixTables } from 'prosemirror-tables';

/** The attributes an imported element keeps for the schema's parse rules; ids and styles go. */
const keptAttributes = new Set(['href', 'title', 'start', 'src', 'alt', 'align']);

/**
 * CAT6: HTML imported into a text document, in the work pool. It is sanitized first (the
 * server's page sanitizer with the page configuration of PAGE2 and its size limits LIMIT8 and
 * LIMIT9, server/pages/page-tools.ts), then read by the
 * schema's own parse rules, which keep only what the schema has (links only to targets LINK1
 * accepts). A table is kept as a table (its cells' text and inline marks, a column's
 * alignment), made rectangular as the editor keeps tables (prosemirror-tables' `fixTables`); a
 * table inside a cell becomes the text of its cells, joined by " | ", and that is said in the
 * warnings; so is an image whose address IMG1 refuses, which is left out. Every block gets a new
 * id (DOC2): ids in the markup are not kept, so an import never repeats an id the document holds.
 */
export function htmlToDoc(html: string): { doc: Node; warnings: string[] } {
  const tools = serverPageTools();
  const sanitized = tools.serialize(tools.sanitize(html));
  // ProseMirror's parse rules read a real DOM: the sanitized markup is parsed once more by jsdom
  // (as a document: jsdom's `innerHTML` is quadratic in a wide fragment). Nothing in it can run.
  const { JSDOM } = createRequire(import.meta.url)('jsdom') as typeof JsdomModule;
  const document = new JSDOM(`<!doctype html><html><body>${sanitized}</body></html>`).window.document;
  const fragment = document.body;
  // Innermost first, so that a table three deep is flattened into its cell before that cell's table is.
  const nested = [...fragment.querySelectorAll('table')].filter((table) => table.parentElement?.closest('table')).reverse();
  for (const table of nested) {
    const rows = [...table.querySelectorAll('tr')].map((row) => [...row.children].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim()).join(' | '));
    table.replaceWith(document.createTextNode(rows.join(' | ')));
  }
  const images = [...fragment.querySelectorAll('img')].filter((image) => !isSafeImageSrc(image.getAttribute('src')));
  const alts = images.map((image) => image.getAttribute('alt') ?? '');
  for (const image of images) image.remove();
  for (const element of fragment.querySelectorAll('*')) {
    // A cell's style is read for its alignment only (table-nodes.ts); the schema writes its own.
    const cell = element.tagName === 'TD' || element.tagName === 'TH';
    for (const name of element.getAttributeNames()) if (!keptAttributes.has(name) && !(cell && name === 'style')) element.removeAttribute(name);
  }
  const doc = withBlockIds(rectangularTables(ProseMirrorParser.fromSchema(schema).parse(fragment)));
  return { doc, warnings: [...tableWarnings(nested.length), ...imageWarnings(alts)] };
}

/** `doc` with every table given the same number of cells per row, and without tables that have no row. */
function rectangularTables(doc: Node): Node {
  const fixed = fixTables(EditorState.create({ doc }))?.doc ?? doc;
  const empty: { from: number; to: number }[] = [];
  fixed.descendants((node, pos) => {
    if (node.type.name === 'table' && node.childCount === 0) empty.push({ from: pos, to: pos + node.nodeSize });
    return node.type.name !== 'table';
  });
  if (empty.length === 0) return fixed;
  const state = EditorState.create({ doc: fixed });
  const tr = state.tr;
  for (const { from, to } of empty.reverse()) tr.delete(from, to);
  return tr.doc;
}
