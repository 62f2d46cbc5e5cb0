import * as Y from 'yjs';
import type { Mark, Node } from 'prosemirror-model';
import { isPlainLine } from '../model/plain-markdown.ts';
import { schema } from '../model/schema.ts';
import { textDiff } from './text-diff.ts';

/**
 * Plain paragraphs read and rewritten straight from their Yjs items, without ProseMirror nodes:
 * most blocks an agent replaces are a paragraph of prose, whose Markdown is its text
 * (shared/model/plain-markdown.ts). Each function answers only where the full path
 * (applier-write.ts `readBlock` and `updateBlock`) gives the same result, and returns null (or
 * false) otherwise, so that the caller takes the full path; tests/unit/plain-block.test.ts checks
 * both against it over generated Yjs content.
 */

/**
 * The text of `yelement` when it is a paragraph whose Markdown is that text: its only attribute
 * is `id`, its only child one Y.XmlText holding characters whose only marks are well-formed
 * `change` marks (which Markdown does not show), and the text is a plain line
 * (`isPlainLine`). Else null.
 */
export function readPlainParagraph(yelement: Y.XmlElement): string | null {
  if (yelement.nodeName !== 'paragraph' || yelement.length !== 1) return null;
  for (const [key, item] of yelement._map) {
    if (key !== 'id' && !item.deleted) return null;
  }
  const ytext = yelement.get(0);
  if (!(ytext instanceof Y.XmlText)) return null;
  let text = '';
  for (let item = ytext._start; item !== null; item = item.right) {
    if (item.deleted) continue;
    const content = item.content;
    if (content instanceof Y.ContentString) text += content.str;
    else if (!(content instanceof Y.ContentFormat) || content.key !== 'change' || !isChangeValue(content.value)) return null;
  }
  return isPlainLine(text) ? text : null;
}

/**
 * A `change` attribute value that the full path writes back unchanged: null (the end of a
 * mark) or exactly the mark's attributes, as ProseMirror computes them.
 */
function isChangeValue(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return Object.keys(record).length === 2 && typeof record.runId === 'string' && typeof record.instructionId === 'string';
}

/**
 * The text of `block` when it is a paragraph holding one run of text without marks and no
 * pending delete (what a plain op writes), else null.
 */
export function unmarkedParagraphText(block: Node): string | null {
  if (block.type !== schema.nodes.paragraph || block.childCount !== 1 || block.attrs.deleting !== null) return null;
  const child = block.child(0);
  return child.isText && child.marks.length === 0 ? (child.text ?? null) : null;
}

/**
 * Rewrites the paragraph `yelement`, read by `readPlainParagraph` as `before`, to hold `after`
 * (unmarked text; its id unchanged): the character diff deleted and inserted where it falls,
 * the inserted text carrying exactly `mark`. Kept characters are not touched, so they keep
 * their change marks, as `updateBlock` keeps them.
 */
export function writePlainParagraph(yelement: Y.XmlElement, before: string, after: string, mark: Mark | null): void {
  if (before === after) return;
  const ytext = yelement.get(0) as Y.XmlText;
  let at = 0;
  for (const { kind, text } of textDiff(before, after)) {
    if (kind === 'removed') ytext.delete(at, text.length);
    else {
      // Yjs gives inserted text exactly the attributes it is given (those around it set to null).
      if (kind === 'added') ytext.insert(at, text, mark === null ? {} : { [mark.type.name]: mark.attrs });
      at += text.length;
    }
  }
}
