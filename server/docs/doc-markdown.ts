import type * as Y from 'yjs';
import { docParts, type DocKind } from '../../shared/model/doc-layout.ts';
import { readProseMirrorDoc, withoutPendingDeletes } from '../../shared/model/doc-content.ts';
import { docToMarkdown, withoutChangeMarks } from '../../shared/model/markdown.ts';
import type { Node } from 'prosemirror-model';

/**
 * A document's text Y.Doc as Markdown: the text itself, or a page's HTML source in a fenced
 * code block. What `GET /api/docs/:id/markdown` answers and what a run carries as context.
 */
export function docMarkdown(kind: DocKind, ydoc: Y.Doc): string {
  return kind === 'page' ? fence('html', docParts(ydoc).html.toString()) : docToMarkdown(exportedDoc(ydoc));
}

/**
 * The text every export reads (Markdown, HTML, Word): a run in review reads as accepted — its
 * pending deletes left out, its change marks removed.
 */
export function exportedDoc(ydoc: Y.Doc): Node {
  return withoutChangeMarks(withoutPendingDeletes(readProseMirrorDoc(ydoc)));
}

/** `source` as a fenced code block whose fence is longer than any backtick run inside. */
function fence(info: string, source: string): string {
  const longest = Math.max(2, ...(source.match(/`+/g) ?? []).map((run) => run.length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${info}\n${source}${source.endsWith('\n') ? '' : '\n'}${marks}\n`;
}
