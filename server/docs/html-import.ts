import { createRequire } from 'node:module';
import type * as JsdomModule from 'jsdom';
import { DOMParser as ProseMirrorParser, type Node } from 'prosemirror-model';
import { schema } from '../../shared/model/schema.ts';
import { withBlockIds } from '../../shared/model/block-ids.ts';
import { imageWarnings, tableWarnings } from '../../shared/model/markdown-warnings.ts';
import { isSafeImageSrc } from '../../shared/model/image-src.ts';
import { serverPageTools } from '../pages/page-tools.ts';

/** The attributes an imported element keeps for the schema's parse rules; ids and styles go. */
const keptAttributes = new Set(['href', 'title', 'start', 'src', 'alt']);

/**
 * CAT6: HTML imported into a text document, in the work pool. It is sanitized first (the
 * server's page sanitizer with the page configuration of PAGE2 and its size limits LIMIT8 and
 * LIMIT9, server/pages/page-tools.ts), then read by the
 * schema's own parse rules, which keep only what the schema has (links only to targets LINK1
 * accepts). A table becomes a paragraph per row, its cells joined by " | "; an image whose
 * address IMG1 refuses is left out; both are said in the warnings. Every block gets a new id (DOC2): ids in the markup are
 * not kept, so an import never repeats an id the document holds.
 */
export function htmlToDoc(html: string): { doc: Node; warnings: string[] } {
  const tools = serverPageTools();
  const sanitized = tools.serialize(tools.sanitize(html));
  // ProseMirror's parse rules read a real DOM: the sanitized markup is parsed once more by jsdom
  // (as a document: jsdom's `innerHTML` is quadratic in a wide fragment). Nothing in it can run.
  const { JSDOM } = createRequire(import.meta.url)('jsdom') as typeof JsdomModule;
  const document = new JSDOM(`<!doctype html><html><body>${sanitized}</body></html>`).window.document;
  const fragment = document.body;
  const tables = [...fragment.querySelectorAll('table')].filter((table) => !table.parentElement?.closest('table'));
  for (const table of tables) {
    const rows = [...table.querySelectorAll('tr')].map((row) => {
      const paragraph = document.createElement('p');
      paragraph.textContent = [...row.children].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim()).join(' | ');
      return paragraph;
    });
    table.replaceWith(...rows);
  }
  const images = [...fragment.querySelectorAll('img')].filter((image) => !isSafeImageSrc(image.getAttribute('src')));
  const alts = images.map((image) => image.getAttribute('alt') ?? '');
  for (const image of images) image.remove();
  for (const element of fragment.querySelectorAll('*')) {
    for (const name of element.getAttributeNames()) if (!keptAttributes.has(name)) element.removeAttribute(name);
  }
  const doc = withBlockIds(ProseMirrorParser.fromSchema(schema).parse(fragment));
  return { doc, warnings: [...tableWarnings(tables.length), ...imageWarnings(alts)] };
}
